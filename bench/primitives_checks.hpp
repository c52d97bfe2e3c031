// bench/primitives_checks.hpp — every result of the primitives benchmark is checked against
// a CPU reference before its time counts. Internal to gpgpu_bench_primitives.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gpgpu::bench::checks {

struct Check {
  bool ok = true;
  std::string note;  // what was compared, and the worst error or first mismatch
};

// |got - exact| <= (depth + 1) * 2^-24 * magnitude (magnitude = sum |x|).
Check reduce(double got, double exact, double magnitude, int depth);
// Every prefix within (depth + 1) * 2^-24 * sum_{j <= i} |x_j| of the float64 prefix.
Check scan(std::span<const float> got, std::span<const float> x, int depth);
// Equal element by element.
Check same(std::span<const std::uint32_t> got, std::span<const std::uint32_t> want,
           const char* what);
// keys_out sorted, values_out a permutation of 0..n-1 with keys[values_out[i]] == keys_out[i],
// and equal keys in increasing value order (stability).
Check stable_pairs(std::span<const std::uint32_t> keys, std::span<const std::uint32_t> keys_out,
                   std::span<const std::uint32_t> values_out);
// Bins within `tolerance` (absolute) of the reference, and the same total.
Check histogram(std::span<const std::uint32_t> got, std::span<const std::uint32_t> want,
                std::uint32_t tolerance);

}  // namespace gpgpu::bench::checks
