// Shared by the grid build, cache and command tests: a fresh cache folder per test, the
// cache's warnings collected, and bit-for-bit comparison of grids.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpgpu/cache.hpp"
#include "gpgpu/earth/grid.hpp"

namespace gpgpu::earth::test {

// GPGPU_CACHE_DIR names a new empty folder while this lives (then the folder is removed and
// the variable restored); the warnings the cache gives meanwhile are kept in `warnings`.
class CacheSandbox {
 public:
  CacheSandbox() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = std::filesystem::temp_directory_path() /
          ("gpgpu-earth-grid-test-" + std::to_string(::getpid()) + "-" + info->name());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    if (const char* old = std::getenv("GPGPU_CACHE_DIR")) previous_dir_ = old;
    ::setenv("GPGPU_CACHE_DIR", dir.c_str(), 1);
    cache::set_warning_handler([this](const std::string& w) { warnings.push_back(w); });
  }
  ~CacheSandbox() {
    cache::set_warning_handler({});
    if (previous_dir_.empty()) {
      ::unsetenv("GPGPU_CACHE_DIR");
    } else {
      ::setenv("GPGPU_CACHE_DIR", previous_dir_.c_str(), 1);
    }
    std::filesystem::remove_all(dir);
  }
  CacheSandbox(const CacheSandbox&) = delete;
  CacheSandbox& operator=(const CacheSandbox&) = delete;

  // The grid store's entry files (*.bin).
  std::vector<std::filesystem::path> entries() const {
    std::vector<std::filesystem::path> found;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir / "earth-grids", ec)) {
      if (e.path().extension() == ".bin") found.push_back(e.path());
    }
    return found;
  }

  std::filesystem::path dir;
  std::vector<std::string> warnings;

 private:
  std::string previous_dir_;
};

template <class T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// Every array of the two grids holds the same bits.
inline void expect_same_grid(const Grid& a, const Grid& b) {
  EXPECT_EQ(a.level, b.level);
  EXPECT_TRUE(same_bytes(a.centres, b.centres));
  EXPECT_TRUE(same_bytes(a.degree, b.degree));
  EXPECT_TRUE(same_bytes(a.neighbours, b.neighbours));
  EXPECT_TRUE(same_bytes(a.triangles, b.triangles));
  EXPECT_TRUE(same_bytes(a.cell_triangles, b.cell_triangles));
  EXPECT_TRUE(same_bytes(a.corners, b.corners));
  EXPECT_TRUE(same_bytes(a.corner_weights, b.corner_weights));
  EXPECT_TRUE(same_bytes(a.areas, b.areas));
  EXPECT_TRUE(same_bytes(a.edge_lengths, b.edge_lengths));
  EXPECT_TRUE(same_bytes(a.edge_normals, b.edge_normals));
  EXPECT_TRUE(same_bytes(a.neighbour_distances, b.neighbour_distances));
}

}  // namespace gpgpu::earth::test
