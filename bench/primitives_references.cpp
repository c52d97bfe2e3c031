// What every primitives result is measured and checked against (primitives_runner.hpp): the
// checks against CPU references, and the parallel CPU contenders.
#include <algorithm>
#include <cmath>
#include <execution>
#include <numeric>
#include <thread>

#include <fmt/format.h>

#include "primitives_runner.hpp"

namespace gpgpu::bench::checks {

namespace {
constexpr double u = 1.0 / (1 << 24);
}

Check reduce(double got, double exact, double magnitude, int depth) {
  const double error = std::fabs(got - exact), bound = (depth + 1) * u * magnitude;
  return {error <= bound,
          fmt::format("|error| {:.3g} <= bound {:.3g} (depth {})", error, bound, depth)};
}

Check scan(std::span<const float> got, std::span<const float> x, int depth) {
  double exact = 0, magnitude = 0, worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    exact += x[i];
    magnitude += std::fabs(x[i]);
    const double error = std::fabs(got[i] - exact), bound = (depth + 1) * u * magnitude;
    if (!(error <= bound)) {
      return {false, fmt::format("out[{}] = {} but the float64 prefix is {} (bound {:.3g})", i,
                                 got[i], exact, bound)};
    }
    worst = std::max(worst, magnitude > 0 ? error / (u * magnitude) : 0.0);
  }
  return {true, fmt::format("every prefix within its bound; worst error {:.3g} u sum|x| (depth {})",
                            worst, depth)};
}

Check same(std::span<const std::uint32_t> got, std::span<const std::uint32_t> want,
           const char* what) {
  if (got.size() != want.size())
    return {false, fmt::format("{} values, expected {}", got.size(), want.size())};
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i])
      return {false, fmt::format("{}[{}] = {}, expected {}", what, i, got[i], want[i])};
  }
  return {true, fmt::format("all {} {} exact", got.size(), what)};
}

Check stable_pairs(std::span<const std::uint32_t> keys, std::span<const std::uint32_t> keys_out,
                   std::span<const std::uint32_t> values_out) {
  std::vector<bool> seen(keys.size(), false);
  for (std::size_t i = 0; i < keys_out.size(); ++i) {
    const std::uint32_t v = values_out[i];
    if (v >= keys.size() || seen[v])
      return {false, fmt::format("value[{}] = {} is not a fresh index", i, v)};
    seen[v] = true;
    if (keys[v] != keys_out[i])
      return {false, fmt::format("key[{}] = {} but keys[{}] = {}", i, keys_out[i], v, keys[v])};
    if (i > 0 && (keys_out[i - 1] > keys_out[i] ||
                  (keys_out[i - 1] == keys_out[i] && values_out[i - 1] > v))) {
      return {false, fmt::format("pairs {} and {} out of (stable) order", i - 1, i)};
    }
  }
  return {true, fmt::format("{} pairs sorted and stable", keys_out.size())};
}

Check histogram(std::span<const std::uint32_t> got, std::span<const std::uint32_t> want,
                std::uint32_t tolerance) {
  std::uint64_t total_got = 0, total_want = 0;
  std::uint32_t worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    total_got += got[i];
    total_want += want[i];
    worst = std::max(worst, got[i] > want[i] ? got[i] - want[i] : want[i] - got[i]);
  }
  const bool ok = worst <= tolerance && total_got == total_want;
  return {ok, tolerance == 0
                  ? fmt::format("all {} bins exact", want.size())
                  : fmt::format("worst bin off by {} (allowed {}: edge rounding), totals {} vs {}",
                                worst, tolerance, total_got, total_want)};
}

}  // namespace gpgpu::bench::checks

namespace gpgpu::bench::cpu {

namespace {
unsigned threads() {
  return std::max(1u, std::thread::hardware_concurrency());
}
}  // namespace

std::string backend() {
  if (!GPGPU_BENCH_CPU_TBB) return "std::execution::par without TBB: sequential";
  return fmt::format("std::execution::par (TBB), {} threads", threads());
}

double reduce_sum(std::span<const float> x) {
  return std::reduce(std::execution::par, x.begin(), x.end(), 0.0f);
}

void inclusive_sum(std::span<const float> x, std::span<float> out) {
  std::inclusive_scan(std::execution::par, x.begin(), x.end(), out.begin());
}

void sort(std::span<std::uint32_t> keys) {
  std::sort(std::execution::par, keys.begin(), keys.end());
}

void sort_pairs(std::span<std::uint32_t> keys, std::span<std::uint32_t> values) {
  // (key, value) packed in 64 bits: sorting those is stable for distinct values (the index
  // payloads the benchmark uses).
  std::vector<std::uint64_t> packed(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    packed[i] = (std::uint64_t{keys[i]} << 32) | values[i];
  std::sort(std::execution::par, packed.begin(), packed.end());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    keys[i] = static_cast<std::uint32_t>(packed[i] >> 32);
    values[i] = static_cast<std::uint32_t>(packed[i]);
  }
}

std::vector<std::uint32_t> histogram(std::span<const float> x, std::uint32_t bins, float lo,
                                     float hi) {
  const float scale = static_cast<float>(bins) / (hi - lo);
  const unsigned parts = threads();
  std::vector<std::vector<std::uint32_t>> partial(parts, std::vector<std::uint32_t>(bins + 3, 0));
  // One contiguous part of x per thread, each counted into its own bins.
  const auto count = [&](std::size_t b, std::size_t e, std::vector<std::uint32_t>& c) {
    for (std::size_t i = b; i < e; ++i) {
      const float v = x[i];
      if (std::isnan(v)) {
        ++c[bins + 2];
      } else if (v < lo) {
        ++c[bins];
      } else if (v > hi) {
        ++c[bins + 1];
      } else {
        const float t = (v - lo) * scale;  // float32 on x86-64 (SSE), as on the GPU
        ++c[std::min(static_cast<std::uint32_t>(t), bins - 1)];
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned p = 0; p < parts; ++p)
    pool.emplace_back(count, x.size() * p / parts, x.size() * (p + 1) / parts,
                      std::ref(partial[p]));
  for (auto& t : pool) t.join();
  std::vector<std::uint32_t> total(bins + 3, 0);
  for (const auto& c : partial) {
    for (std::size_t i = 0; i < total.size(); ++i) total[i] += c[i];
  }
  return total;
}

}  // namespace gpgpu::bench::cpu
