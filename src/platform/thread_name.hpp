// Internal: names a thread for debuggers, profilers and tests (a platform difference: the
// browser's workers have no names).
#pragma once

#include <thread>

namespace gpgpu::detail {

// Gives `thread` a short name (at most 15 characters are kept natively); never fails.
void name_thread(std::thread& thread, const char* name) noexcept;

}  // namespace gpgpu::detail
