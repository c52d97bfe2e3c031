// A Store: keyed files in one folder of the cache, bounded in size.
#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>
#include <system_error>
#include <variant>

#include "cache/cache_file.hpp"
#include "gpgpu/cache.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::cache {

namespace fs = std::filesystem;

namespace {

bool valid_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
  });
}

// Warns about `subject` once per process: a folder that cannot be written would otherwise
// warn at every compile.
void warn_once(const std::string& subject, const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string> said;
  {
    std::lock_guard lock(mutex);
    if (!said.insert(subject).second) return;
  }
  warn(message);
}

// Temporary files of writers that died before their rename.
bool stale_temporary(const fs::directory_entry& entry, fs::file_time_type now) {
  const auto name = entry.path().filename().string();
  if (name.empty() || name[0] != '.' || name.find(".tmp-") == std::string::npos) return false;
  std::error_code ec;
  const auto written = entry.last_write_time(ec);
  return !ec && now - written > std::chrono::hours(1);
}

}  // namespace

std::uint64_t hash64(std::string_view text, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

Store::Store(std::string name, std::uint32_t format_version, std::uint64_t max_bytes,
             fs::path folder)
    : name_(std::move(name)), format_version_(format_version), max_bytes_(max_bytes) {
  if (!valid_name(name_)) {
    throw ArgumentError(
        fmt::format("cache::Store: name '{}' must be letters, digits, '-' and '_' only", name_));
  }
  folder_ = folder.empty() ? directory() / name_ : std::move(folder);
  active_ = enabled();
}

fs::path Store::file_for(std::string_view key) const {
  return folder_ / fmt::format("{:016x}.bin", hash64(key));
}

std::optional<std::vector<std::byte>> Store::load(std::string_view key) const {
  if (!active_) return std::nullopt;
  const fs::path path = file_for(key);
  std::vector<std::byte> bytes;
  if (!detail::read_whole_file(path, bytes)) return std::nullopt;
  const auto decoded = detail::decode_entry({name_, format_version_, key}, bytes);
  if (const auto* payload = std::get_if<detail::Payload>(&decoded)) {
    std::error_code ec;  // the mark of recent use is best effort (a read-only cache)
    fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
    return std::move(payload->bytes);
  }
  if (const auto* bad = std::get_if<detail::Unusable>(&decoded)) {
    // No once-only filter here: the file is removed, so the next load is a plain miss and
    // only a file damaged again warns again.
    warn(fmt::format("cache file {} is unusable ({}); it is ignored and will be rebuilt",
                     path.string(), bad->reason));
    std::error_code ec;
    fs::remove(path, ec);
  }
  return std::nullopt;
}

bool Store::store(std::string_view key, std::span<const std::byte> payload) const {
  if (!active_) return false;
  try {
    fs::create_directories(folder_);
    detail::write_file_atomically(file_for(key),
                                  detail::encode_entry({name_, format_version_, key}, payload));
  } catch (const std::exception& e) {
    warn_once("write:" + folder_.string(),
              fmt::format("cannot write the cache folder {} ({}); going on without it",
                          folder_.string(), e.what()));
    return false;
  }
  trim();
  return true;
}

void Store::remove(std::string_view key) const {
  if (!active_) return;
  std::error_code ec;
  fs::remove(file_for(key), ec);
}

// Removes the least recently used entries while the folder holds more than its limit, down
// to three quarters of it (so that a full store is not trimmed at every write).
void Store::trim() const {
  struct File {
    fs::path path;
    fs::file_time_type used;
    std::uintmax_t size;
  };
  std::vector<File> files;
  std::uintmax_t total = 0;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (const auto& entry : fs::directory_iterator(folder_, ec)) {
    std::error_code item_ec;
    if (!entry.is_regular_file(item_ec)) continue;
    if (stale_temporary(entry, now)) {
      fs::remove(entry.path(), item_ec);
      continue;
    }
    if (entry.path().extension() != ".bin") continue;
    const auto size = entry.file_size(item_ec);
    const auto used = entry.last_write_time(item_ec);
    if (item_ec) continue;  // removed by another process meanwhile
    files.push_back({entry.path(), used, size});
    total += size;
  }
  if (total <= max_bytes_) return;
  std::sort(files.begin(), files.end(),
            [](const File& a, const File& b) { return a.used < b.used; });
  const std::uintmax_t goal = max_bytes_ / 4 * 3;
  for (const auto& file : files) {
    if (total <= goal) break;
    if (fs::remove(file.path, ec)) total -= file.size;
  }
}

}  // namespace gpgpu::cache
