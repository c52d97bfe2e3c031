// Grids kept in the disk cache (grid_cache.hpp), through gpgpu::cache::Store.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <optional>

#include <fmt/format.h>

#include "earth/grid/names.hpp"
#include "earth/grid/springs.hpp"
#include "gpgpu/cache.hpp"
#include "gpgpu/earth/grid_cache.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::earth {

namespace fs = std::filesystem;

namespace {

// An exclusive lock on `path` for as long as it lives (flock: released by the kernel if the
// process dies, so a crashed builder leaves no stale lock). Without a usable file it holds
// nothing and the caller goes on unlocked.
class FileLock {
 public:
  explicit FileLock(const fs::path& path) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

// The grid stored under `key`, or nothing (a miss; an entry that does not decode is
// removed with one warning).
std::optional<GridBuild> load_entry(const cache::Store& store, const std::string& key) {
  const double t0 = detail::seconds_now();
  auto bytes = store.load(key);
  if (!bytes) return std::nullopt;
  GridBuild b;
  b.report.source = "cache";
  b.report.stages.push_back({"read", detail::seconds_now() - t0});
  try {
    b.grid = decode_grid(*bytes, b.report);
  } catch (const FormatError& e) {
    cache::warn(fmt::format("cache file {} is unusable ({}); it is ignored and will be rebuilt",
                            store.file_for(key).string(), e.what()));
    store.remove(key);
    return std::nullopt;
  }
  b.report.seconds = detail::seconds_now() - t0;
  return b;
}

}  // namespace

std::string grid_cache_key(const GridOptions& o) {
  return fmt::format(
      "earth-grid v{} level={} points={} volumes={} recentre={} beta={:a} tolerance={:a} "
      "sweeps={} reorder={}",
      grid_format_version, o.level, detail::placement_name(o.optimization),
      detail::control_volume_name(o.control_volume), o.recentre, o.spring_beta, o.spring_tolerance,
      o.spring_max_sweeps, o.reorder);
}

GridBuild cached_grid(const GridOptions& options, const Context* gpu) {
  const cache::Store store("earth-grids", grid_format_version, grid_cache_limit);
  const std::string key = grid_cache_key(options);
  if (!store.active()) return build_grid_reported(options, gpu);
  if (auto hit = load_entry(store, key)) return std::move(*hit);
  // Whoever holds the lock builds; the others find the entry when they get it.
  fs::path lock_path = store.file_for(key);
  lock_path.replace_extension(".lock");
  const double t0 = detail::seconds_now();
  FileLock lock(lock_path);
  const double waited = detail::seconds_now() - t0;
  if (auto hit = load_entry(store, key)) {
    hit->report.stages.insert(hit->report.stages.begin(), {"wait for builder", waited});
    hit->report.seconds += waited;
    return std::move(*hit);
  }
  GridBuild b = build_grid_reported(options, gpu);
  const double t1 = detail::seconds_now();
  store.store(key, encode_grid(b.grid));
  b.report.stages.push_back({"store", detail::seconds_now() - t1});
  b.report.seconds += detail::seconds_now() - t1;
  return b;
}

}  // namespace gpgpu::earth
