#include "primitives_internal.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <thread>

#include <fmt/format.h>

#if GPGPU_BENCH_CPU_TBB
#include <execution>
#elif GPGPU_BENCH_CPU_OPENMP
#include <omp.h>

#include <parallel/algorithm>
#endif

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
#if GPGPU_BENCH_CPU_TBB
  return fmt::format("std::execution::par (TBB), {} threads", threads());
#elif GPGPU_BENCH_CPU_OPENMP
  return fmt::format("OpenMP (libstdc++ parallel mode for sort), {} threads",
                     omp_get_max_threads());
#else
  return "sequential std algorithms (neither TBB nor OpenMP was found)";
#endif
}

double reduce_sum(std::span<const float> x) {
#if GPGPU_BENCH_CPU_TBB
  return std::reduce(std::execution::par, x.begin(), x.end(), 0.0f);
#elif GPGPU_BENCH_CPU_OPENMP
  float s = 0;
  const auto n = static_cast<std::int64_t>(x.size());
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) s += x[static_cast<std::size_t>(i)];
  return s;
#else
  return std::reduce(x.begin(), x.end(), 0.0f);
#endif
}

void inclusive_sum(std::span<const float> x, std::span<float> out) {
#if GPGPU_BENCH_CPU_TBB
  std::inclusive_scan(std::execution::par, x.begin(), x.end(), out.begin());
#elif GPGPU_BENCH_CPU_OPENMP
  // Reduce-then-scan over one part per thread.
  const unsigned parts = threads();
  std::vector<float> totals(parts + 1, 0.0f);
  parallel_parts(x.size(), [&](std::size_t b, std::size_t e, unsigned p) {
    float s = 0;
    for (std::size_t i = b; i < e; ++i) s += x[i];
    totals[p + 1] = s;
  });
  for (unsigned p = 1; p <= parts; ++p) totals[p] += totals[p - 1];
  parallel_parts(x.size(), [&](std::size_t b, std::size_t e, unsigned p) {
    float s = totals[p];
    for (std::size_t i = b; i < e; ++i) out[i] = s += x[i];
  });
#else
  std::inclusive_scan(x.begin(), x.end(), out.begin());
#endif
}

namespace {
template <class T>
void parallel_sort(std::span<T> v) {
#if GPGPU_BENCH_CPU_TBB
  std::sort(std::execution::par, v.begin(), v.end());
#elif GPGPU_BENCH_CPU_OPENMP
  __gnu_parallel::sort(v.begin(), v.end());
#else
  std::sort(v.begin(), v.end());
#endif
}
}  // namespace

void sort(std::span<std::uint32_t> keys) {
  parallel_sort(keys);
}

void sort_pairs(std::span<std::uint32_t> keys, std::span<std::uint32_t> values) {
  // (key, value) packed in 64 bits: sorting those is stable for distinct values (the index
  // payloads the benchmark uses).
  std::vector<std::uint64_t> packed(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    packed[i] = (std::uint64_t{keys[i]} << 32) | values[i];
  parallel_sort(std::span(packed));
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
