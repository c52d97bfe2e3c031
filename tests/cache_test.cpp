// The disk cache: what is stored comes back bit for bit; a damaged, truncated or foreign file
// is a miss with one warning and is removed; concurrent writers leave a valid file; the size
// bound removes the least recently used entries; GPGPU_CACHE=off reads and writes nothing.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "cache_support.hpp"
#include "gpgpu/cache.hpp"
#include "gpgpu/error.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using gpgpu::cache::Store;

namespace {

using gpgpu::test::CapturedWarnings;
using gpgpu::test::ScopedEnv;

// A fresh folder per test, removed afterwards.
struct TempDir : gpgpu::test::TempDir {
  TempDir() : gpgpu::test::TempDir("gpgpu-cache-test") {}
};

std::vector<std::byte> random_bytes(std::size_t n) {
  std::vector<std::byte> bytes(n);
  std::uniform_int_distribution<int> dist(0, 255);
  for (auto& b : bytes) b = static_cast<std::byte>(dist(gpgpu::test::rng()));
  return bytes;
}

std::vector<std::byte> file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

void write_bytes(const fs::path& path, std::span<const std::byte> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

TEST(Cache, DirectoryFollowsTheEnvironment) {
  {
    ScopedEnv dir("GPGPU_CACHE_DIR", "/some/where");
    EXPECT_EQ(gpgpu::cache::directory(), fs::path("/some/where"));
  }
  ScopedEnv no_dir("GPGPU_CACHE_DIR", nullptr);
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(gpgpu::cache::directory(), fs::path("/xdg/gpgpu"));
  }
  ScopedEnv no_xdg("XDG_CACHE_HOME", nullptr);
  ScopedEnv home("HOME", "/home/someone");
  EXPECT_EQ(gpgpu::cache::directory(), fs::path("/home/someone/.cache/gpgpu"));
  for (const char* off : {"off", "0", "false", "no"}) {
    ScopedEnv cache("GPGPU_CACHE", off);
    EXPECT_FALSE(gpgpu::cache::enabled()) << off;
  }
  ScopedEnv cache("GPGPU_CACHE", "on");
  EXPECT_TRUE(gpgpu::cache::enabled());
}

TEST(Cache, RoundTripIsBitExact) {
  TempDir dir;
  CapturedWarnings warnings;
  Store store("things", 3, gpgpu::cache::default_store_limit, dir.path());
  const auto payload = random_bytes(100'003);
  EXPECT_FALSE(store.load("key one"));
  ASSERT_TRUE(store.store("key one", payload));
  const auto back = store.load("key one");
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, payload);
  EXPECT_FALSE(store.load("key two"));  // another key is a miss
  // An empty payload is a valid entry, distinct from a miss.
  ASSERT_TRUE(store.store("empty", {}));
  const auto empty = store.load("empty");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
  store.remove("key one");
  EXPECT_FALSE(store.load("key one"));
  EXPECT_TRUE(warnings.lines.empty());
  // Nothing but entries is left behind (no temporary files).
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().extension(), ".bin") << entry.path();
  }
}

TEST(Cache, DamagedFilesAreMissesWithOneWarningAndAreRemoved) {
  TempDir dir;
  Store store("things", 1, gpgpu::cache::default_store_limit, dir.path());
  const auto payload = random_bytes(4096);
  const fs::path file = store.file_for("k");
  struct Damage {
    const char* what;
    std::function<void(std::vector<std::byte>&)> apply;
  };
  std::uniform_int_distribution<std::size_t> anywhere(0, 4096 + 40);
  const std::vector<Damage> damages = {
      {"truncated", [](auto& b) { b.resize(b.size() / 2); }},
      {"truncated header", [](auto& b) { b.resize(10); }},
      {"empty", [](auto& b) { b.clear(); }},
      {"one bit flipped",
       [&](auto& b) { b[anywhere(gpgpu::test::rng()) % b.size()] ^= std::byte{0x10}; }},
      {"padded", [](auto& b) { b.push_back(std::byte{0}); }},
      {"foreign bytes", [](auto& b) { std::fill(b.begin(), b.end(), std::byte{'x'}); }},
  };
  for (const auto& damage : damages) {
    SCOPED_TRACE(damage.what);
    ASSERT_TRUE(store.store("k", payload));
    auto bytes = file_bytes(file);
    damage.apply(bytes);
    write_bytes(file, bytes);
    CapturedWarnings warnings;
    EXPECT_FALSE(store.load("k"));
    ASSERT_EQ(warnings.lines.size(), 1u);
    EXPECT_NE(warnings.lines[0].find(file.string()), std::string::npos) << warnings.lines[0];
    EXPECT_FALSE(fs::exists(file));
    EXPECT_FALSE(store.load("k"));  // now simply absent: no second warning
    EXPECT_EQ(warnings.lines.size(), 1u);
  }
}

TEST(Cache, AnotherVersionOrStoreIsRefused) {
  TempDir dir;
  const auto payload = random_bytes(64);
  Store v1("things", 1, gpgpu::cache::default_store_limit, dir.path());
  Store v2("things", 2, gpgpu::cache::default_store_limit, dir.path());
  Store other("other", 1, gpgpu::cache::default_store_limit, dir.path());
  ASSERT_TRUE(v1.store("k", payload));
  {
    CapturedWarnings warnings;
    EXPECT_FALSE(v2.load("k"));
    ASSERT_EQ(warnings.lines.size(), 1u);
    EXPECT_NE(warnings.lines[0].find("format version 1"), std::string::npos) << warnings.lines[0];
  }
  ASSERT_TRUE(v1.store("k", payload));
  {
    CapturedWarnings warnings;
    EXPECT_FALSE(other.load("k"));  // same folder here, so the same file name
    ASSERT_EQ(warnings.lines.size(), 1u);
    EXPECT_NE(warnings.lines[0].find("store 'things'"), std::string::npos) << warnings.lines[0];
  }
}

TEST(Cache, AnEntryOfAnotherKeyUnderTheSameFileIsAQuietMiss) {
  TempDir dir;
  CapturedWarnings warnings;
  Store store("things", 1, gpgpu::cache::default_store_limit, dir.path());
  ASSERT_TRUE(store.store("first", random_bytes(32)));
  // Pretend "second" hashes to the file of "first" (a collision).
  fs::rename(store.file_for("first"), store.file_for("second"));
  EXPECT_FALSE(store.load("second"));
  EXPECT_TRUE(warnings.lines.empty());
}

TEST(Cache, AFolderThatCannotBeWrittenWarnsOnceAndGoesOn) {
  TempDir dir;
  // A regular file where the folder should be: no directory can be made there (root ignores
  // permission bits, so a read-only mode would not stop it).
  write_bytes(dir.path() / "blocked", random_bytes(4));
  CapturedWarnings warnings;
  Store store("things", 1, gpgpu::cache::default_store_limit, dir.path() / "blocked" / "things");
  EXPECT_FALSE(store.store("a", random_bytes(8)));
  EXPECT_FALSE(store.store("b", random_bytes(8)));
  EXPECT_FALSE(store.load("a"));
  ASSERT_EQ(warnings.lines.size(), 1u);
  EXPECT_NE(warnings.lines[0].find("cannot write the cache folder"), std::string::npos);
}

TEST(Cache, OffReadsAndWritesNothing) {
  TempDir dir;
  Store on("things", 1, gpgpu::cache::default_store_limit, dir.path() / "things");
  ASSERT_TRUE(on.store("k", random_bytes(8)));
  ScopedEnv off("GPGPU_CACHE", "off");
  Store store("things", 1, gpgpu::cache::default_store_limit, dir.path() / "things");
  EXPECT_FALSE(store.active());
  EXPECT_FALSE(store.load("k"));
  EXPECT_FALSE(store.store("new", random_bytes(8)));
  EXPECT_FALSE(fs::exists(store.file_for("new")));
}

TEST(Cache, TheSizeBoundRemovesTheLeastRecentlyUsed) {
  TempDir dir;
  const std::size_t entry = 10'000;
  Store store("things", 1, 5 * entry, dir.path());  // room for about four entries
  const auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(2);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(store.store("k" + std::to_string(i), random_bytes(entry)));
    // Older entries get older times (file times are coarse on some file systems).
    fs::last_write_time(store.file_for("k" + std::to_string(i)),
                        old_time + std::chrono::minutes(i));
  }
  ASSERT_TRUE(store.load("k0"));  // now the most recently used
  ASSERT_TRUE(store.store("k4", random_bytes(entry)));
  ASSERT_TRUE(store.store("k5", random_bytes(entry)));
  EXPECT_TRUE(store.load("k0"));
  EXPECT_FALSE(store.load("k1"));  // the least recently used went first
  EXPECT_TRUE(store.load("k5"));
  std::uintmax_t total = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) total += e.file_size();
  EXPECT_LE(total, 5 * entry);
}

TEST(Cache, ConcurrentWritersLeaveAValidEntry) {
  TempDir dir;
  const int writers = 4, rounds = 50;
  std::vector<std::vector<std::byte>> payloads;
  for (int w = 0; w < writers; ++w) payloads.push_back(random_bytes(20'000 + 1000 * w));
  std::vector<pid_t> children;
  for (int w = 0; w < writers; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      Store store("things", 1, gpgpu::cache::default_store_limit, dir.path());
      bool ok = true;
      for (int r = 0; r < rounds; ++r) ok = store.store("shared", payloads[w]) && ok;
      ::_exit(ok ? 0 : 1);
    }
    children.push_back(pid);
  }
  // Meanwhile this process reads: every hit is one writer's whole payload.
  CapturedWarnings warnings;
  Store reader("things", 1, gpgpu::cache::default_store_limit, dir.path());
  int hits = 0;
  for (int r = 0; r < 200; ++r) {
    if (auto got = reader.load("shared")) {
      ++hits;
      EXPECT_NE(std::find(payloads.begin(), payloads.end(), *got), payloads.end());
    }
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_TRUE(warnings.lines.empty());
  const auto final = reader.load("shared");
  ASSERT_TRUE(final);
  EXPECT_NE(std::find(payloads.begin(), payloads.end(), *final), payloads.end());
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().extension(), ".bin") << entry.path();
  }
  (void)hits;
}

TEST(Cache, BadStoreNamesAreRefused) {
  EXPECT_THROW(Store("../up", 1), gpgpu::ArgumentError);
  EXPECT_THROW(Store("", 1), gpgpu::ArgumentError);
}
