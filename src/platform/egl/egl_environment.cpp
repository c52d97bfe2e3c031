// Settings that Mesa's drivers read from the environment when they load, made before gpgpu's
// first EGL call of the process (egl_devices.cpp calls this first).
//
// ZINK_INLINE_UNIFORMS=false: Mesa's zink (22.3, and later releases with the same code) on a
// CPU Vulkan device such as lavapipe compiles a variant of each program per value of the
// uniforms its loops and branches test, and after a switch to another compute program and
// back it dispatches a pipeline built for earlier values (zink_bind_cs_state never restores
// the program's module hash, so the pipeline cached without one is reused): a reduction
// summed 1024 of 65,537 values. Turning the variants off costs that driver its loop
// unrolling by uniform bounds and changes nothing elsewhere: only zink reads the variable,
// and it inlines uniforms only on CPU devices unless told to. A value the user set is kept.
// gl/uniform_probe.hpp checks the result on every device.
//
// ZINK_DEBUG=noreorder: zink (22.3) moves transfers it judges independent of the work before
// them into a command buffer that runs first, and misjudges some: a copy out of a buffer ran
// before the glReadPixels that filled it (tests/drivers/pack_copy: 9-32 of 1000 rounds), a
// staged texture upload arrived after the draw that read it, and under load a fragment
// kernel's output came back as the texture's earlier zeros. With the reordering off none of
// them shows. Set only where ZINK_DEBUG is unset, so a user's debug flags are kept.
#include <cstdlib>
#include <mutex>

#include "platform/egl/egl_devices.hpp"

namespace gpgpu::detail {

namespace {
// Sets `name` unless the user gave it a value (an empty one counts as none).
void default_to(const char* name, const char* value) {
  const char* given = std::getenv(name);
  if (given == nullptr || *given == '\0') setenv(name, value, /*overwrite=*/1);
}
}  // namespace

void prepare_driver_environment() {
  static std::once_flag once;
  std::call_once(once, [] {
    default_to("ZINK_INLINE_UNIFORMS", "false");
    default_to("ZINK_DEBUG", "noreorder");
  });
}

}  // namespace gpgpu::detail
