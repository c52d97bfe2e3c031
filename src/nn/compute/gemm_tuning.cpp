#include "gemm_tuning.hpp"

#include <algorithm>

#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "gpgpu/cache.hpp"

namespace gpgpu::nn::detail {

namespace {

// Bump when the candidate tilings or the payload change.
constexpr std::uint32_t store_version = 1;

struct Tuned {
  GemmTiling tiling;
  GemmShape shape;  // where it was tuned
};

struct Memory {
  std::mutex mutex;
  std::map<std::string, Tuned> tilings;  // by exact and sibling keys
  double spent_seconds = 0;
  std::map<std::string, double> compile_seconds;  // per device: one program's compile
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

// The tiling and the shape it was tuned at (entries written before the shape was kept have
// only the tiling: their shape reads as 0 x 0 x 0).
std::string encode(const Tuned& t) {
  const GemmTiling& g = t.tiling;
  return fmt::format("{} {} {} {} {} {} {} {} {} {}", g.bm, g.bn, g.bk, g.tm, g.tn, g.split,
                     g.shared ? 1 : 0, t.shape.m, t.shape.n, t.shape.k);
}

std::optional<Tuned> decode(const std::vector<std::byte>& bytes) {
  const std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  Tuned t;
  GemmTiling& g = t.tiling;
  int shared = 0;
  const int read = std::sscanf(text.c_str(), "%d %d %d %d %d %d %d %d %d %d", &g.bm, &g.bn, &g.bk,
                               &g.tm, &g.tn, &g.split, &shared, &t.shape.m, &t.shape.n, &t.shape.k);
  if (read != 7 && read != 10) return std::nullopt;
  if (read == 7) t.shape = {};
  g.shared = shared != 0;
  return t;
}

std::optional<Tuned> find(const std::string& key) {
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
  if (auto t = find(exact_key(id))) return t->tiling;
  return std::nullopt;
}

std::optional<GemmTiling> sibling_tiling(const GemmIdentity& id, GemmShape* tuned_at) {
  for (const auto& key : sibling_keys(id)) {
    if (auto t = find(key)) {
      if (tuned_at != nullptr) *tuned_at = t->shape;
      return t->tiling;
    }
  }
  return std::nullopt;
}

bool far_larger(GemmShape shape, GemmShape sibling) {
  return sibling.m > 0 && static_cast<double>(shape.m) >= 8.0 * static_cast<double>(sibling.m);
}

void remember_tiling(const GemmIdentity& id, const GemmTiling& tiling) {
  std::vector<std::string> keys{exact_key(id)};
  for (auto& key : sibling_keys(id)) keys.push_back(std::move(key));
  const Tuned tuned{tiling, id.shape};
  const std::string text = encode(tuned);
  const cache::Store store = disk();
  auto& m = memory();
  for (const auto& key : keys) {
    {
      std::lock_guard lock(m.mutex);
      m.tilings[key] = tuned;
    }
    store.store(key, std::as_bytes(std::span(text.data(), text.size())));
  }
}

namespace {

std::string compile_cost_key(const std::string& device) {
  return "seconds per compiled program\n" + device;
}

// One program's compile on `device`: this process's measurement, else an earlier one's.
double compile_seconds_of(const std::string& device) {
  auto& m = memory();
  {
    std::lock_guard lock(m.mutex);
    if (const auto it = m.compile_seconds.find(device); it != m.compile_seconds.end()) {
      return it->second;
    }
  }
  double seconds = assumed_compile_seconds;
  if (const auto bytes = disk().load(compile_cost_key(device))) {
    const std::string text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
    double stored = 0;
    if (std::sscanf(text.c_str(), "%lf", &stored) == 1 && stored >= 0 && stored < 60) {
      seconds = stored;
    }
  }
  std::lock_guard lock(m.mutex);
  m.compile_seconds[device] = seconds;
  return seconds;
}

}  // namespace

std::size_t candidates_within_budget(const std::string& device, double budget_seconds,
                                     const std::vector<std::size_t>& programs) {
  const double per_program = compile_seconds_of(device);
  double left = 0;
  {
    auto& m = memory();
    std::lock_guard lock(m.mutex);
    left = budget_seconds - m.spent_seconds;
  }
  // Each candidate also runs once a round to be timed, and the GPU is first warmed up
  // (time_in_rounds): tens of milliseconds on a GPU.
  constexpr double timing_seconds = 0.02;
  std::size_t fit = 0;
  double cost = 0;
  for (const std::size_t p : programs) {
    cost += static_cast<double>(p) * per_program + timing_seconds;
    if (cost > left) break;
    ++fit;
  }
  return fit >= 2 ? fit : 0;
}

void spend_tuning_time(const std::string& device, double seconds, std::size_t compiled,
                       double compile_seconds) {
  auto& m = memory();
  std::lock_guard lock(m.mutex);
  m.spent_seconds += seconds;
  if (compiled == 0) return;
  const double per_program = compile_seconds / static_cast<double>(compiled);
  m.compile_seconds[device] = per_program;
  const std::string text = fmt::format("{:.6f}", per_program);
  disk().store(compile_cost_key(device), std::as_bytes(std::span(text.data(), text.size())));
}

namespace {

// A round whose first candidate times the same at its end as at its start (within 5%) ran
// at one clock.
bool steady(double opening, double closing) {
  return opening > 0 && closing > 0 && std::abs(closing / opening - 1) <= 0.05;
}

}  // namespace

std::vector<std::vector<double>> time_in_rounds(std::size_t candidates, int rounds,
                                                const std::function<double(std::size_t)>& time) {
  std::vector<std::vector<double>> steady_rounds(candidates), all_rounds(candidates);
  int kept = 0;
  for (int r = 0; r < 3 * rounds && kept < rounds && candidates > 0; ++r) {
    std::vector<double> round(candidates);
    for (std::size_t i = 0; i < candidates; ++i) round[i] = time(i);
    const bool keep = steady(round[0], time(0));
    for (std::size_t i = 0; i < candidates; ++i) {
      all_rounds[i].push_back(round[i]);
      if (keep) steady_rounds[i].push_back(round[i]);
    }
    kept += keep ? 1 : 0;
  }
  return kept > 0 ? steady_rounds : all_rounds;
}

double fastest_round(const std::vector<double>& timings) {
  double fastest = std::numeric_limits<double>::infinity();
  for (const double t : timings) {
    if (t >= 0) fastest = std::min(fastest, t);
  }
  return fastest;
}

std::optional<std::size_t> fastest_candidate(const std::vector<std::vector<double>>& timings) {
  std::optional<std::size_t> best;
  double best_ns = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < timings.size(); ++i) {
    const double t = fastest_round(timings[i]);
    if (t < best_ns) best_ns = t, best = i;
  }
  return best;
}

void forget_tunings_in_process() {
  auto& m = memory();
  std::lock_guard lock(m.mutex);
  m.tilings.clear();
  m.spent_seconds = 0;
  m.compile_seconds.clear();
}

}  // namespace gpgpu::nn::detail
