#include "gemm_tuning.hpp"

#include <algorithm>

#include <array>
#include <cstdio>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "gpgpu/cache.hpp"

namespace gpgpu::nn::detail {

namespace {

// Bump when the candidate tilings or the payload change.
constexpr std::uint32_t store_version = 1;

struct Memory {
  std::mutex mutex;
  std::map<std::string, GemmTiling> tilings;  // by exact and sibling keys
  double spent_seconds = 0;
  double longest_tuning = 0;  // the dearest single tuning so far: what the next may cost
};

Memory& memory() {
  static Memory m;
  return m;
}

// Made per use: the cache directory and GPGPU_CACHE are read when a Store is made.
cache::Store disk() {
  return cache::Store("nn-gemm-tilings", store_version, 4u << 20);
}

std::string exact_key(const GemmIdentity& id) {
  return fmt::format("gemm tiling\n{}{}\ndefines {}\nshape {} {} {}\n", id.device, id.code,
                     id.defines, id.shape.m, id.shape.n, id.shape.k);
}

// The keys under which a GEMM is found as a sibling: its code and two of its dimensions.
std::array<std::string, 3> sibling_keys(const GemmIdentity& id) {
  const auto key = [&](const char* dims, int a, int b) {
    return fmt::format("gemm sibling\n{}{}\n{} {} {}\n", id.device, id.code, dims, a, b);
  };
  const GemmShape s = id.shape;
  return {key("n k", s.n, s.k), key("m k", s.m, s.k), key("m n", s.m, s.n)};
}

std::string encode(const GemmTiling& t) {
  return fmt::format("{} {} {} {} {} {} {}", t.bm, t.bn, t.bk, t.tm, t.tn, t.split,
                     t.shared ? 1 : 0);
}

std::optional<GemmTiling> decode(const std::vector<std::byte>& bytes) {
  const std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  GemmTiling t;
  int shared = 0;
  if (std::sscanf(text.c_str(), "%d %d %d %d %d %d %d", &t.bm, &t.bn, &t.bk, &t.tm, &t.tn, &t.split,
                  &shared) != 7) {
    return std::nullopt;
  }
  t.shared = shared != 0;
  return t;
}

std::optional<GemmTiling> find(const std::string& key) {
  auto& m = memory();
  {
    std::lock_guard lock(m.mutex);
    if (const auto it = m.tilings.find(key); it != m.tilings.end()) return it->second;
  }
  const auto bytes = disk().load(key);
  if (!bytes) return std::nullopt;
  const auto t = decode(*bytes);
  if (t) {
    std::lock_guard lock(m.mutex);
    m.tilings[key] = *t;
  }
  return t;
}

}  // namespace

std::optional<GemmTiling> tuned_tiling(const GemmIdentity& id) {
  return find(exact_key(id));
}

std::optional<GemmTiling> sibling_tiling(const GemmIdentity& id) {
  for (const auto& key : sibling_keys(id)) {
    if (auto t = find(key)) return t;
  }
  return std::nullopt;
}

void remember_tiling(const GemmIdentity& id, const GemmTiling& tiling) {
  std::vector<std::string> keys{exact_key(id)};
  for (auto& key : sibling_keys(id)) keys.push_back(std::move(key));
  const std::string text = encode(tiling);
  const cache::Store store = disk();
  auto& m = memory();
  for (const auto& key : keys) {
    {
      std::lock_guard lock(m.mutex);
      m.tilings[key] = tiling;
    }
    store.store(key, std::as_bytes(std::span(text.data(), text.size())));
  }
}

bool tuning_budget_left(double budget_seconds) {
  auto& m = memory();
  std::lock_guard lock(m.mutex);
  // A tuning that starts must also end inside the budget: one costs up to a few hundred
  // milliseconds of compiles and timed runs on a GPU, so checking only what was spent let a
  // process overrun its second by a whole tuning or more (measured on the H200).
  return m.spent_seconds + m.longest_tuning <= budget_seconds;
}

void spend_tuning_time(double seconds) {
  auto& m = memory();
  std::lock_guard lock(m.mutex);
  m.spent_seconds += seconds;
  m.longest_tuning = std::max(m.longest_tuning, seconds);
}

void forget_tunings_in_process() {
  auto& m = memory();
  std::lock_guard lock(m.mutex);
  m.tilings.clear();
  m.spent_seconds = 0;
  m.longest_tuning = 0;
}

}  // namespace gpgpu::nn::detail
