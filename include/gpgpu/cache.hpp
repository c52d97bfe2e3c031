// gpgpu/cache.hpp — what gpgpu keeps on disk between processes, and where.
//
// Compiling shaders, tuning kernels and building grids cost seconds that a second process
// should not pay again. gpgpu keeps their results in one directory:
//
//   $GPGPU_CACHE_DIR, else $XDG_CACHE_HOME/gpgpu, else ~/.cache/gpgpu, else <tmp>/gpgpu
//
// and reads nothing there and writes nothing there when GPGPU_CACHE=off (also 0, false, no).
// Each kind of result lives in its own folder (a `Store`), one file per key:
//
//   gpgpu::cache::Store grids("earth-grids", /*format_version=*/3);
//   if (auto bytes = grids.load(key)) use(*bytes); else grids.store(key, build());
//
// Files are written to a temporary name and renamed into place, so a reader sees a whole
// file or none, and several processes may fill one store at once. Every file carries its
// store's name, format version, full key and a checksum: a truncated, corrupt or foreign file
// is a miss that produces one warning (then it is removed and rebuilt), never a crash or a
// wrong result. A store is bounded in size: when it grows past its limit the least recently
// used files are removed. A store that cannot be written (read-only, full disk) warns once
// and the program goes on without it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpgpu {
struct DeviceInfo;
}

namespace gpgpu::cache {

// The cache directory, resolved from the environment as above (it may not exist yet).
std::filesystem::path directory();

// False when GPGPU_CACHE is off, 0, false or no: then stores neither load nor store.
bool enabled();

// Warnings about the cache (a corrupt file, a directory that cannot be written) go to this
// handler; the default writes one line to stderr. Returns the previous handler. Setting an
// empty function restores the default.
using WarningHandler = std::function<void(const std::string&)>;
// Installs `handler` for the cache's warnings; returns the previous one.
WarningHandler set_warning_handler(WarningHandler handler);
// Sends a warning to the handler (for the library's own parts).
void warn(const std::string& message);

// The default size limit of a store, in bytes.
inline constexpr std::uint64_t default_store_limit = 256ull << 20;

// One kind of cached result: files in `<directory>/<name>/`, keyed by arbitrary text.
class Store {
 public:
  // `name`: the folder, letters, digits, '-' and '_' only. `format_version`: bump it when the
  // payload's layout changes; files of another version are misses. `folder`: where the
  // store lives (empty: directory() / name). Never throws for an unusable directory.
  Store(std::string name, std::uint32_t format_version,
        std::uint64_t max_bytes = default_store_limit, std::filesystem::path folder = {});

  // The payload stored under `key`, or nothing (absent, disabled, or unusable: the last with
  // one warning). A hit marks the file as recently used.
  std::optional<std::vector<std::byte>> load(std::string_view key) const;
  // Stores `payload` under `key`, replacing what was there; then trims the store to its
  // limit. Returns false (after one warning per store) when the file cannot be written.
  bool store(std::string_view key, std::span<const std::byte> payload) const;
  // Removes the entry for `key`, if any (a payload the caller found unusable).
  void remove(std::string_view key) const;

  // The file that holds (or would hold) `key`.
  std::filesystem::path file_for(std::string_view key) const;
  const std::filesystem::path& folder() const noexcept { return folder_; }  // where it lives
  const std::string& name() const noexcept { return name_; }  // its folder's name
  // The store loads and stores (the cache is enabled and its folder usable).
  bool active() const noexcept { return active_; }

 private:
  void trim() const;

  std::string name_;
  std::uint32_t format_version_;
  std::uint64_t max_bytes_;
  std::filesystem::path folder_;
  bool active_;
};

// The device and driver a result was compiled or measured on, as the first part of a key:
// renderer, vendor and GL version string (which carries the driver's version), one per line,
// and the device-limit profile where one is active (limits.hpp). A result keyed by it is not
// reused on another device, after a driver update, or under other limits.
std::string device_key(const DeviceInfo& info);

// A stable 64-bit hash of text (FNV-1a), for keys and file names.
std::uint64_t hash64(std::string_view text, std::uint64_t seed = 0xcbf29ce484222325ull);

}  // namespace gpgpu::cache
