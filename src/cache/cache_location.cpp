// Where the cache lives, whether it is on, where its warnings go, and the device part of keys.
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <system_error>

#include "gpgpu/cache.hpp"
#include "gpgpu/context.hpp"

namespace gpgpu::cache {

namespace {

const char* non_empty_env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

std::mutex& handler_mutex() {
  static std::mutex mutex;
  return mutex;
}

WarningHandler& handler() {
  static WarningHandler current;
  return current;
}

}  // namespace

std::filesystem::path directory() {
  if (const char* dir = non_empty_env("GPGPU_CACHE_DIR")) return dir;
  if (const char* xdg = non_empty_env("XDG_CACHE_HOME"))
    return std::filesystem::path(xdg) / "gpgpu";
  if (const char* home = non_empty_env("HOME")) {
    return std::filesystem::path(home) / ".cache" / "gpgpu";
  }
  std::error_code ec;
  const auto tmp = std::filesystem::temp_directory_path(ec);
  return (ec ? std::filesystem::path("/tmp") : tmp) / "gpgpu";
}

bool enabled() {
  const char* value = non_empty_env("GPGPU_CACHE");
  if (value == nullptr) return true;
  const std::string v(value);
  return !(v == "off" || v == "OFF" || v == "0" || v == "false" || v == "no");
}

WarningHandler set_warning_handler(WarningHandler new_handler) {
  std::lock_guard lock(handler_mutex());
  WarningHandler old = std::move(handler());
  handler() = std::move(new_handler);
  return old;
}

void warn(const std::string& message) {
  WarningHandler current;
  {
    std::lock_guard lock(handler_mutex());
    current = handler();
  }
  if (current) {
    current(message);
  } else {
    std::fprintf(stderr, "gpgpu: warning: %s\n", message.c_str());
  }
}

std::string device_key(const DeviceInfo& info) {
  // Under a device-limit profile the device is another one: choices made within its limits
  // are kept apart from the driver's own.
  const std::string limits =
      info.limit_profile.empty() ? std::string() : "limits " + info.limit_profile + "\n";
  return "renderer " + info.renderer + "\nvendor " + info.vendor + "\nversion " + info.version +
         "\n" + limits;
}

}  // namespace gpgpu::cache
