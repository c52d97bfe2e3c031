#include "primitives_internal.hpp"

#include <algorithm>
#include <cmath>
#include <execution>
#include <numeric>
#include <thread>

#include <fmt/format.h>

namespace gpgpu::bench::cpu {

namespace {
unsigned threads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

// Splits [0, n) into one contiguous part per thread and runs f(begin, end, part) on each.
template <class F>
void parallel_parts(std::size_t n, F f) {
  const unsigned parts = threads();
  std::vector<std::thread> pool;
  for (unsigned p = 0; p < parts; ++p) {
    const std::size_t b = n * p / parts, e = n * (p + 1) / parts;
    pool.emplace_back([=, &f] { f(b, e, p); });
  }
  for (auto& t : pool) t.join();
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
  std::vector<std::vector<std::uint32_t>> partial(threads(),
                                                  std::vector<std::uint32_t>(bins + 3, 0));
  parallel_parts(x.size(), [&](std::size_t b, std::size_t e, unsigned p) {
    auto& c = partial[p];
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
  });
  std::vector<std::uint32_t> total(bins + 3, 0);
  for (const auto& c : partial) {
    for (std::size_t i = 0; i < total.size(); ++i) total[i] += c[i];
  }
  return total;
}

}  // namespace gpgpu::bench::cpu
