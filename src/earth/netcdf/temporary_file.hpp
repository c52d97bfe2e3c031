// Internal: the file a NetCDF write goes to until it is complete — made beside the target at
// once (so that a folder that cannot be written fails before any work), filled with the
// finished file's bytes, flushed to disk and renamed over the target; or removed.
#pragma once

#include <cstddef>
#include <filesystem>

namespace gpgpu::earth::detail {

class TemporaryFile {
 public:
  // Creates ".NAME.tmp-PID-N" in the folder of `target`. Throws Error naming the target, the
  // folder and the system's reason when it cannot.
  explicit TemporaryFile(const std::filesystem::path& target);
  ~TemporaryFile();  // removes the temporary unless commit() ran
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  // Writes all `size` bytes, flushes them to disk and renames the temporary to the target.
  // Throws Error naming the target and the system's reason (a full disk: "No space left on
  // device") and removes the temporary when any step fails.
  void commit(const void* bytes, std::size_t size);
  // Removes the temporary now (idempotent).
  void discard() noexcept;
  const std::filesystem::path& path() const { return temporary_; }

 private:
  std::filesystem::path target_, temporary_;
  int fd_ = -1;
};

}  // namespace gpgpu::earth::detail
