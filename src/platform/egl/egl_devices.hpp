// Internal: finding EGL devices and making a GLES context on one of them.
#pragma once

#include <string>
#include <vector>

#include "gpgpu/context.hpp"
#include "platform/egl/egl.hpp"

namespace gpgpu::detail {

// One place a context can be made: an EGL device, or Mesa's surfaceless platform.
struct DeviceCandidate {
  DeviceDescription description;
  EGLDeviceEXT device = EGL_NO_DEVICE_EXT;  // EGL_NO_DEVICE_EXT for the surfaceless platform
  EGLenum platform = 0;                     // EGL_PLATFORM_DEVICE_EXT or _SURFACELESS_MESA
};

// Sets what Mesa's drivers read when they load (egl_environment.cpp); once per process,
// before the first EGL call.
void prepare_driver_environment();

// The client (display-less) EGL extensions, split into names.
std::vector<std::string> egl_client_extensions();
bool has_word(const std::vector<std::string>& names, const std::string& name);
std::vector<std::string> split_words(const char* text);

// The display's own EGL device (EGL_EXT_device_query) reports EGL_MESA_device_software:
// the CPU runs the shaders. This answers for Mesa's surfaceless platform too, whose display
// sits on a device like any other.
bool display_on_software_device(EGLDisplay display);

// All candidates, in list_devices() order: the EGL devices as the driver lists them, then
// the surfaceless platform.
std::vector<DeviceCandidate> enumerate_candidates();

}  // namespace gpgpu::detail
