#include "last_group_glsl.hpp"

namespace gpgpu::primitives {

const char* const last_group_glsl = R"(
shared bool lg_is_last;
bool last_group() {
  memoryBarrierBuffer();
  barrier();
  if (gl_LocalInvocationID.x == 0u) {
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_NumWorkGroups.z;
    lg_is_last = atomicAdd(done_count[0], 1u) == groups - 1u;
  }
  barrier();
  memoryBarrierBuffer();
  return lg_is_last;
}
)";

std::string with_last_group(std::string kernel) {
  kernel.replace(kernel.find("LAST_GROUP"), 10, last_group_glsl);
  return kernel;
}

}  // namespace gpgpu::primitives
