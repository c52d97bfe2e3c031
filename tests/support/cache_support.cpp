#include "cache_support.hpp"

#include <unistd.h>

#include <cstdlib>

#include <gtest/gtest.h>

#include "gpgpu/cache.hpp"
#include "test_support.hpp"

namespace gpgpu::test {

ScopedEnv::ScopedEnv(std::string name, const char* value) : name_(std::move(name)) {
  if (const char* v = std::getenv(name_.c_str())) old_ = v;
  if (value) {
    ::setenv(name_.c_str(), value, 1);
  } else {
    ::unsetenv(name_.c_str());
  }
}

ScopedEnv::~ScopedEnv() {
  if (old_) {
    ::setenv(name_.c_str(), old_->c_str(), 1);
  } else {
    ::unsetenv(name_.c_str());
  }
}

TempDir::TempDir(const std::string& prefix, bool as_cache_dir) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  path_ = std::filesystem::temp_directory_path() /
          (prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(seed()) + "-" +
           (info ? info->name() : "none"));
  std::filesystem::remove_all(path_);
  if (as_cache_dir) {
    env_.emplace("GPGPU_CACHE_DIR", path_.c_str());
  } else {
    std::filesystem::create_directories(path_);
  }
}

TempDir::~TempDir() {
  env_.reset();
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

CapturedWarnings::CapturedWarnings() {
  cache::set_warning_handler([this](const std::string& w) { lines.push_back(w); });
}

CapturedWarnings::~CapturedWarnings() {
  cache::set_warning_handler({});
}

}  // namespace gpgpu::test
