// The browser's large-buffer memory (gl/buffer_memory.hpp): none. WebGL2 cannot import memory,
// so every Buffer takes the browser's own.
#include "gl/buffer_memory.hpp"
#include "gl/platform.hpp"

namespace gpgpu::detail {

std::unique_ptr<BufferMemory> open_buffer_memory(const ContextState&, std::string& why) {
  why = "WebGL2 cannot import memory";
  return nullptr;
}

}  // namespace gpgpu::detail
