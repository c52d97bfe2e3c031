#include "primitives_internal.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

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
