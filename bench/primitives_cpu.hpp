// bench/primitives_cpu.hpp — the CPU contenders of the primitives benchmark, on every core:
// std::execution::par (TBB) where the build found TBB, else OpenMP, else sequential code;
// backend() says which. Internal to gpgpu_bench_primitives.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gpgpu::bench::cpu {

std::string backend();  // e.g. "std::execution::par (TBB), 16 threads"

double reduce_sum(std::span<const float> x);  // summed in float, as the GPU does
void inclusive_sum(std::span<const float> x, std::span<float> out);
void sort(std::span<std::uint32_t> keys);
// Stable sort of (key, value) pairs by key.
void sort_pairs(std::span<std::uint32_t> keys, std::span<std::uint32_t> values);
// gpgpu's float32 bin formula (primitives.hpp): bins + 3 counts (below, above, NaN last).
std::vector<std::uint32_t> histogram(std::span<const float> x, std::uint32_t bins, float lo,
                                     float hi);

}  // namespace gpgpu::bench::cpu
