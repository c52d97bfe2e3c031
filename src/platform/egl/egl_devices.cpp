#include "platform/egl/egl_devices.hpp"

#include <sstream>

namespace gpgpu::detail {

std::vector<std::string> split_words(const char* text) {
  std::vector<std::string> words;
  if (text == nullptr) return words;
  std::istringstream stream(text);
  std::string word;
  while (stream >> word) words.push_back(word);
  return words;
}

bool has_word(const std::vector<std::string>& names, const std::string& name) {
  for (const auto& n : names) {
    if (n == name) return true;  // whole names: EGL_EXT_device_base is not EGL_EXT_device_base2
  }
  return false;
}

std::vector<std::string> egl_client_extensions() {
  prepare_driver_environment();
  const char* text = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (text == nullptr) {
    eglGetError();  // EGL < 1.5 without EGL_EXT_client_extensions reports EGL_BAD_DISPLAY
    return {};
  }
  return split_words(text);
}

namespace {

DeviceDescription describe(EGLDeviceEXT device, int index) {
  DeviceDescription d;
  d.index = index;
  auto query_string = reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(
      eglGetProcAddress("eglQueryDeviceStringEXT"));
  auto query_attrib = reinterpret_cast<PFNEGLQUERYDEVICEATTRIBEXTPROC>(
      eglGetProcAddress("eglQueryDeviceAttribEXT"));
  std::vector<std::string> exts;
  if (query_string != nullptr) {
    const char* text = query_string(device, EGL_EXTENSIONS);
    if (text != nullptr) d.egl_extensions = text;
    exts = split_words(text);
    if (has_word(exts, "EGL_EXT_device_drm")) {
      const char* file = query_string(device, EGL_DRM_DEVICE_FILE_EXT);
      if (file != nullptr) d.drm_file = file;
    }
  }
  eglGetError();
  if (has_word(exts, "EGL_NV_device_cuda") && query_attrib != nullptr) {
    EGLAttrib cuda = -1;
    if (query_attrib(device, EGL_CUDA_DEVICE_NV, &cuda) == EGL_TRUE)
      d.cuda_device = static_cast<int>(cuda);
    eglGetError();
  }
  d.kind = has_word(exts, "EGL_MESA_device_software") ? "software" : "gpu";
  return d;
}

}  // namespace

bool display_on_software_device(EGLDisplay display) {
  auto query_display = reinterpret_cast<PFNEGLQUERYDISPLAYATTRIBEXTPROC>(
      eglGetProcAddress("eglQueryDisplayAttribEXT"));
  auto query_string = reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(
      eglGetProcAddress("eglQueryDeviceStringEXT"));
  EGLAttrib device = 0;
  const bool found = query_display != nullptr && query_string != nullptr &&
                     query_display(display, EGL_DEVICE_EXT, &device) == EGL_TRUE && device != 0;
  const bool software =
      found &&
      has_word(split_words(query_string(reinterpret_cast<EGLDeviceEXT>(device), EGL_EXTENSIONS)),
               "EGL_MESA_device_software");
  eglGetError();  // a display without EGL_EXT_device_query answers EGL_BAD_DISPLAY or similar
  return software;
}

std::vector<DeviceCandidate> enumerate_candidates() {
  std::vector<DeviceCandidate> candidates;
  const auto client = egl_client_extensions();
  const bool can_enumerate =
      has_word(client, "EGL_EXT_device_enumeration") || has_word(client, "EGL_EXT_device_base");
  if (can_enumerate && has_word(client, "EGL_EXT_platform_device")) {
    auto query_devices =
        reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    EGLint count = 0;
    if (query_devices != nullptr && query_devices(0, nullptr, &count) == EGL_TRUE && count > 0) {
      std::vector<EGLDeviceEXT> devices(static_cast<std::size_t>(count));
      if (query_devices(count, devices.data(), &count) == EGL_TRUE) {
        for (EGLint i = 0; i < count; ++i) {
          DeviceCandidate c;
          c.device = devices[static_cast<std::size_t>(i)];
          c.platform = EGL_PLATFORM_DEVICE_EXT;
          c.description = describe(c.device, static_cast<int>(candidates.size()));
          candidates.push_back(c);
        }
      }
    }
    eglGetError();
  }
  if (has_word(client, "EGL_MESA_platform_surfaceless")) {
    DeviceCandidate c;
    c.platform = EGL_PLATFORM_SURFACELESS_MESA;
    c.description.index = static_cast<int>(candidates.size());
    c.description.kind = "surfaceless";
    candidates.push_back(c);
  }
  return candidates;
}

}  // namespace gpgpu::detail
