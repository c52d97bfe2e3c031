// For the tests of what is kept on disk (gpgpu/cache.hpp): a fresh folder per test, an
// environment variable set for one scope, and the cache's warnings collected.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gpgpu::test {

// Sets (or with nullptr unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const char* value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// A fresh folder named after the process, the seed and the running test; removed at the
// end. With `as_cache_dir`, GPGPU_CACHE_DIR names it while it lives (and it is not created:
// the cache makes it when it first writes).
class TempDir {
 public:
  explicit TempDir(const std::string& prefix, bool as_cache_dir = false);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::optional<ScopedEnv> env_;
};

// Collects the cache's warnings instead of printing them, for one scope.
struct CapturedWarnings {
  std::vector<std::string> lines;
  CapturedWarnings();
  ~CapturedWarnings();
  CapturedWarnings(const CapturedWarnings&) = delete;
  CapturedWarnings& operator=(const CapturedWarnings&) = delete;
};

}  // namespace gpgpu::test
