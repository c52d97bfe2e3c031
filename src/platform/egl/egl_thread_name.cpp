#include <pthread.h>

#include "platform/thread_name.hpp"

namespace gpgpu::detail {

void name_thread(std::thread& thread, const char* name) noexcept {
  pthread_setname_np(thread.native_handle(), name);
}

}  // namespace gpgpu::detail
