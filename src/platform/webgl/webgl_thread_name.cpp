#include "platform/thread_name.hpp"

namespace gpgpu::detail {

// Emscripten's pthreads are Web Workers, which have no thread names.
void name_thread(std::thread&, const char*) noexcept {}

}  // namespace gpgpu::detail
