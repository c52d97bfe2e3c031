// Linked into every executable of a sanitized build (-DGPGPU_SANITIZE=ON, see
// cmake/sanitize.cmake): loads the EGL vendor libraries and the Mesa DRI drivers at start-up
// with RTLD_NODELETE, so that they stay mapped until the process ends.
//
// Why: a driver keeps some process-lifetime allocations in its own globals. Mesa's
// util_cpu_detect(), for one, reallocs a 128-byte L3 cache affinity mask on AMD Zen CPUs
// (util_cpu_caps.L3_affinity_mask) and never frees it. When the last EGL display is
// terminated, libglvnd and libEGL_mesa dlclose the driver; its globals are unmapped with it,
// so at exit LeakSanitizer finds the block with no pointer to it (a "direct leak") whose
// allocating frame lies in no mapped module ("<unknown module>"). No suppression by module
// name (tests/sanitizers/lsan.supp) can match a frame without a module, so the leak check
// would fail on some machines and pass on others. Kept mapped, the drivers' globals still
// point at their blocks (not leaks), and anything they do leak is attributed to them by
// name, where lsan.supp suppresses only Mesa's and LLVM's frames, never gpgpu's.
//
// Mesa's zink, the GL driver on Vulkan, dlopens the Vulkan loader, which dlopens the Vulkan
// drivers (lavapipe's libvulkan_lvp.so carries its own copy of util_cpu_detect) and closes
// them again when zink's screen goes: the loader and the drivers it would find are kept
// loaded the same way.
//
// Loading a library that the process would load anyway changes nothing else: libglvnd's
// later dlopen of the same file returns the same, already initialised, object. Libraries
// that are missing are skipped silently (a machine without Mesa, or without NVIDIA's EGL).
#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

std::vector<std::string> split_paths(const char* text) {
  std::vector<std::string> parts;
  if (text == nullptr) return parts;
  std::string current;
  for (const char* c = text;; ++c) {
    if (*c == ':' || *c == '\0') {
      if (!current.empty()) parts.push_back(current);
      current.clear();
      if (*c == '\0') break;
    } else {
      current += *c;
    }
  }
  return parts;
}

// The "library_path" of one glvnd EGL vendor file or Vulkan driver manifest (a JSON file;
// the value is one string).
std::string vendor_library(const std::filesystem::path& json) {
  std::ifstream in(json);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto key = text.find("\"library_path\"");
  if (key == std::string::npos) return {};
  const auto open = text.find('"', text.find(':', key));
  const auto close = open == std::string::npos ? open : text.find('"', open + 1);
  if (close == std::string::npos) return {};
  return text.substr(open + 1, close - open - 1);
}

// The EGL vendor libraries libglvnd would load, found the way libglvnd finds them.
std::vector<std::string> egl_vendor_libraries() {
  std::vector<std::string> files = split_paths(std::getenv("__EGL_VENDOR_LIBRARY_FILENAMES"));
  if (files.empty()) {
    std::vector<std::string> dirs = split_paths(std::getenv("__EGL_VENDOR_LIBRARY_DIRS"));
    if (dirs.empty()) dirs = {"/etc/glvnd/egl_vendor.d", "/usr/share/glvnd/egl_vendor.d"};
    for (const auto& dir : dirs) {
      std::error_code ignored;
      for (const auto& entry : std::filesystem::directory_iterator(dir, ignored)) {
        if (entry.path().extension() == ".json") files.push_back(entry.path().string());
      }
    }
  }
  std::vector<std::string> libraries;
  for (const auto& file : files) {
    std::string library = vendor_library(file);
    if (!library.empty()) libraries.push_back(std::move(library));
  }
  return libraries;
}

// The Vulkan drivers the Vulkan loader would load, found the way it finds them.
std::vector<std::string> vulkan_drivers() {
  std::vector<std::string> files = split_paths(std::getenv("VK_DRIVER_FILES"));
  if (files.empty()) files = split_paths(std::getenv("VK_ICD_FILENAMES"));
  if (files.empty()) {
    for (const char* dir : {"/etc/vulkan/icd.d", "/usr/local/share/vulkan/icd.d",
                            "/usr/share/vulkan/icd.d"}) {
      std::error_code ignored;
      for (const auto& entry : std::filesystem::directory_iterator(dir, ignored)) {
        if (entry.path().extension() == ".json") files.push_back(entry.path().string());
      }
    }
  }
  std::vector<std::string> libraries = {"libvulkan.so.1"};
  for (const auto& file : files) {
    std::string library = vendor_library(file);
    if (!library.empty()) libraries.push_back(std::move(library));
  }
  return libraries;
}

// Every DRI driver file, once per distinct file (Debian installs one "megadriver" under
// many hard-linked names: swrast_dri.so, kms_swrast_dri.so, radeonsi_dri.so...).
std::vector<std::string> dri_drivers() {
  std::vector<std::string> dirs = split_paths(std::getenv("LIBGL_DRIVERS_PATH"));
  if (dirs.empty()) {
    dirs = {"/usr/lib/x86_64-linux-gnu/dri", "/usr/lib/aarch64-linux-gnu/dri", "/usr/lib64/dri",
            "/usr/lib/dri"};
  }
  std::vector<std::string> drivers;
  std::set<std::pair<dev_t, ino_t>> seen;
  for (const auto& dir : dirs) {
    std::error_code ignored;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ignored)) {
      const std::string name = entry.path().filename().string();
      if (name.size() < 7 || name.compare(name.size() - 7, 7, "_dri.so") != 0) continue;
      struct stat s {};
      if (stat(entry.path().c_str(), &s) != 0 || !seen.insert({s.st_dev, s.st_ino}).second) {
        continue;
      }
      drivers.push_back(entry.path().string());
    }
  }
  return drivers;
}

__attribute__((constructor)) void keep_gl_drivers_loaded() {
  std::vector<std::string> libraries = egl_vendor_libraries();
  for (auto& driver : dri_drivers()) libraries.push_back(std::move(driver));
  for (auto& driver : vulkan_drivers()) libraries.push_back(std::move(driver));
  for (const auto& library : libraries) {
    // The handle is deliberately never closed: RTLD_NODELETE is the point.
    if (dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) == nullptr) dlerror();
  }
}

}  // namespace
