// `gpgpu histogram IN.npy --out OUT.npy [--bins 256] [--range lo,hi]`: counts per bin
// (uint32, `bins` values) of the flattened array; values outside the range and NaNs are
// counted on stdout. Floats: equal bins over [lo, hi] (default: the data's finite min and
// max). Integers: bins of width 1 from lo to hi - 1 (default: the data's min to max).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpgpu/error.hpp"
#include "primitives_cli.hpp"

namespace gpgpu::cli {

namespace {

struct HistogramCommandOptions {
  PrimitiveFiles files;
  std::uint32_t bins = 0;  // 0: not given
  std::vector<double> range;
};

// The finite min and max of float data (the default range); [0, 1] when there are none.
std::pair<float, float> float_extent(std::span<const float> x) {
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (float v : x) {
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (lo > hi) return {0.0f, 1.0f};
  if (lo == hi) hi = std::nextafter(lo + 1.0f, INFINITY);
  return {lo, hi};
}

template <class T>
std::pair<std::int64_t, std::int64_t> int_extent(std::span<const T> x) {
  if (x.empty()) return {0, 1};
  const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  return {static_cast<std::int64_t>(*lo), static_cast<std::int64_t>(*hi) + 1};
}

HistogramCounts count(const Context& ctx, const PrimitiveInput& in,
                      const HistogramCommandOptions& o, std::string& described) {
  if (in.array.dtype == npy::DType::Float32) {
    auto [lo, hi] = float_extent(std::as_const(in.array).view<float>());
    if (!o.range.empty()) lo = static_cast<float>(o.range[0]), hi = static_cast<float>(o.range[1]);
    const std::uint32_t bins = o.bins ? o.bins : 256;
    described = fmt::format("{} bins over [{}, {}]", bins, lo, hi);
    return histogram(ctx, std::as_const(in.array).view<float>(), bins, lo, hi);
  }
  auto [lo, hi] = in.array.dtype == npy::DType::Int32
                      ? int_extent(std::as_const(in.array).view<std::int32_t>())
                      : int_extent(std::as_const(in.array).view<std::uint32_t>());
  if (!o.range.empty()) {
    if (o.range[0] != std::floor(o.range[0]) || o.range[1] != std::floor(o.range[1])) {
      throw ArgumentError(
          fmt::format("--range {},{}: integer input takes integer bounds", o.range[0], o.range[1]));
    }
    lo = static_cast<std::int64_t>(o.range[0]);
    hi = static_cast<std::int64_t>(o.range[1]);
  }
  if (o.bins != 0 && !o.range.empty() && o.bins != hi - lo) {
    throw ArgumentError(fmt::format(
        "--bins {} with --range {},{}: integer bins have width 1, so --bins must be hi - lo = {} "
        "(or give only one of them)",
        o.bins, lo, hi, hi - lo));
  }
  if (o.bins != 0 && o.range.empty()) hi = lo + o.bins;
  if (hi - lo < 1 || hi - lo > (1 << 24)) {
    throw ArgumentError(
        fmt::format("integer bins from {} to {}: expected 1 to 2^24 bins", lo, hi - 1));
  }
  const auto bins = static_cast<std::uint32_t>(hi - lo);
  described = fmt::format("{} bins of width 1 from {} to {}", bins, lo, hi - 1);
  if (in.array.dtype == npy::DType::Int32)
    return histogram_int(ctx, std::as_const(in.array).view<std::int32_t>(), bins, lo);
  return histogram_int(ctx, std::as_const(in.array).view<std::uint32_t>(), bins, lo);
}

int run(const HistogramCommandOptions& o) {
  if (!o.range.empty() && !(o.range[0] < o.range[1])) {
    throw ArgumentError(fmt::format("--range {},{}: expected lo < hi", o.range[0], o.range[1]));
  }
  Context ctx({.device = o.files.device});
  const npy::Array array = npy::load(o.files.input);
  PrimitiveInput in;  // the host overloads upload it themselves
  in.array = array;
  in.count = array.element_count();
  std::string described;
  const HistogramCounts h = count(ctx, in, o, described);
  save_atomically(o.files.output, npy::make<std::uint32_t>({h.bins.size()},
                                                           std::span<const std::uint32_t>(h.bins)));
  std::cout << fmt::format("histogram of {} {}: {}; below {}, above {}, NaN {} -> {}\n", in.count,
                           npy::dtype_name(array.dtype), described, h.below, h.above, h.nan,
                           o.files.output);
  return 0;
}

}  // namespace

Command add_histogram_command(CLI::App& app) {
  auto* sub = app.add_subcommand("histogram",
                                 "Histogram of a .npy array on the GPU (uint32 counts per bin)");
  auto o = std::make_shared<HistogramCommandOptions>();
  add_file_options(*sub, o->files, false);
  sub->add_option("--bins", o->bins, "number of bins (floats: default 256)")
      ->check(CLI::Range(1u, 1u << 24));
  sub->add_option("--range", o->range, "lo,hi: the binned range (default: the data's extent)")
      ->delimiter(',')
      ->expected(2);
  return [o]() { return run(*o); };
}

}  // namespace gpgpu::cli
