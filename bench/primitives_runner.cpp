// `gpgpu bench primitives` (primitives_runner.hpp): per size, each primitive timed and
// checked for every contender, the slow ones stopped at the size where they became too slow;
// then, with --sweep, a few kernel shapes of gpgpu's own; then the report.
#include "primitives_runner.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <execution>
#include <functional>
#include <iostream>
#include <map>
#include <numeric>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "sweep.hpp"

#if GPGPU_BENCH_HAVE_CUDA
#include "cuda_matmul.hpp"
#endif
#if GPGPU_BENCH_HAVE_CUB
#include "cuda_primitives.hpp"
#endif

namespace gpgpu::bench {

namespace {

constexpr std::uint32_t histogram_bins = 256;
using std::execution::par;  // the CPU contenders (cpu::backend)

// Reproducible data from a seed: the top bits of splitmix64 draws.
std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
std::vector<std::uint32_t> random_uints(std::size_t n, std::uint64_t state) {
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) x = static_cast<std::uint32_t>(splitmix(state) >> 32);
  return v;
}
// The float64 sum of x and of |x|: a reduction's reference and its error bound's magnitude.
std::pair<double, double> float64_sum(std::span<const float> x) {
  double exact = 0, magnitude = 0;
  for (float v : x) exact += v, magnitude += std::fabs(v);
  return {exact, magnitude};
}
std::vector<float> random_floats(std::size_t n, std::uint64_t state, float lo, float hi) {
  std::vector<float> v(n);
  for (auto& x : v)
    x = lo + (hi - lo) * static_cast<float>(splitmix(state) >> 40) * (1.0f / 16777216.0f);
  return v;
}

// A run: a point per primitive (Point::group), contender and size, and the tuning sweep's
// (primitives-sweep.json and .csv: the tuning in Point::contender).
struct Report {
  RunFacts facts;
  std::string cpu_backend, timing;
  std::vector<std::size_t> sizes;
  Sweep points;
  std::vector<Point> sweep;
};

// Bytes per element the GB/s figures count, per primitive.
double bytes_per_element(const std::string& p) {
  if (p == "reduce" || p == "histogram") return 4;          // one read
  if (p == "scan" || p == "sort" || p == "copy") return 8;  // one read and one write
  if (p == "sort_pairs") return 16;  // keys and values, read and written once
  return 4;
}

// ---- What every result is checked against: a CPU reference, before its time counts.
namespace checks {

constexpr double u = 1.0 / (1 << 24);

// |got - exact| <= (depth + 1) * 2^-24 * magnitude (magnitude = sum |x|).
Check reduce(double got, double exact, double magnitude, int depth) {
  const double error = std::fabs(got - exact), bound = (depth + 1) * u * magnitude;
  return {error <= bound,
          fmt::format("|error| {:.3g} <= bound {:.3g} (depth {})", error, bound, depth)};
}

// Every prefix within (depth + 1) * 2^-24 * sum_{j <= i} |x_j| of the float64 prefix.
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
  const auto [g, w] = std::mismatch(got.begin(), got.end(), want.begin());
  if (g != got.end())
    return {false, fmt::format("{}[{}] = {}, expected {}", what, g - got.begin(), *g, *w)};
  return {true, fmt::format("all {} {} exact", got.size(), what)};
}

// keys_out sorted, values_out a permutation of 0..n-1 with keys[values_out[i]] == keys_out[i],
// and equal keys in increasing value order (stability).
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

// Bins within `tolerance` (absolute) of the reference, and the same total.
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

}  // namespace checks

// ---- The CPU contenders, on every core: std::execution::par on TBB where the build found TBB,
// else sequential; backend() says which.
namespace cpu {

unsigned threads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

std::string backend() {
  if (!GPGPU_BENCH_CPU_TBB) return "std::execution::par without TBB: sequential";
  return fmt::format("std::execution::par (TBB), {} threads", threads());
}

// Stable by key: (key, value) packed in 64 bits, sorted; stable for distinct values (the index
// payloads the benchmark uses).
void sort_pairs(std::span<std::uint32_t> keys, std::span<std::uint32_t> values) {
  std::vector<std::uint64_t> packed(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    packed[i] = (std::uint64_t{keys[i]} << 32) | values[i];
  std::sort(std::execution::par, packed.begin(), packed.end());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    keys[i] = static_cast<std::uint32_t>(packed[i] >> 32);
    values[i] = static_cast<std::uint32_t>(packed[i]);
  }
}

// gpgpu's float32 bin formula (primitives.hpp): bins + 3 counts (below, above, NaN last).
std::vector<std::uint32_t> histogram(std::span<const float> x, std::uint32_t bins, float lo,
                                     float hi) {
  const float scale = static_cast<float>(bins) / (hi - lo);
  const unsigned parts = threads();
  std::vector<std::vector<std::uint32_t>> partial(parts, std::vector<std::uint32_t>(bins + 3, 0));
  std::vector<std::thread> pool;
  // One contiguous part of x per thread, each counted into its own bins.
  for (unsigned p = 0; p < parts; ++p) {
    pool.emplace_back([&, p] {
      auto& c = partial[p];
      for (std::size_t i = x.size() * p / parts; i < x.size() * (p + 1) / parts; ++i) {
        const float v = x[i], t = (v - lo) * scale;  // float32 on x86-64 (SSE), as on the GPU
        ++c[std::isnan(v) ? bins + 2
            : v < lo      ? bins
            : v > hi      ? bins + 1
                          : std::min(static_cast<std::uint32_t>(t), bins - 1)];
      }
    });
  }
  for (auto& t : pool) t.join();
  std::vector<std::uint32_t> total(bins + 3, 0);
  for (const auto& c : partial)
    std::transform(c.begin(), c.end(), total.begin(), total.begin(), std::plus<>());
  return total;
}

}  // namespace cpu

// gpgpu's reduce, scan and sort of one input, timed and checked: the bench's gpgpu contenders
// and each shape of the tuning sweep.
Outcome gpgpu_reduce(const Context& ctx, const Budget& budget, const std::vector<float>& x,
                     double exact, double magnitude) {
  const Buffer in = Buffer::from(ctx, x);
  Buffer out(ctx, ElementType::Float32, 1);
  const Measured m = gpu_timed(ctx, budget, [&] { reduce(ctx, in, out); });
  const float got = out.to_vector<float>()[0];
  return {m, checks::reduce(got, exact, magnitude, reduce_error_depth(ctx, x.size()))};
}
Outcome gpgpu_scan(const Context& ctx, const Budget& budget, const std::vector<float>& x) {
  const Buffer in = Buffer::from(ctx, x);
  Buffer out(ctx, ElementType::Float32, x.size());
  const Measured m = gpu_timed(ctx, budget, [&] { inclusive_scan(ctx, in, out); });
  return {m, checks::scan(out.to_vector<float>(), x, scan_error_depth(ctx, x.size()))};
}
// Keys (equal to `want` once sorted), or with `pairs` keys and the values 0..n-1 (sorted and
// stable), restored before each run, untimed.
Outcome gpgpu_sort(const Context& ctx, const Budget& budget, const std::vector<std::uint32_t>& keys,
                   bool pairs, const std::vector<std::uint32_t>& want) {
  const std::size_t n = keys.size();
  std::vector<std::uint32_t> iota(n);
  std::iota(iota.begin(), iota.end(), 0u);
  const Buffer pristine = Buffer::from(ctx, keys), pristine_values = Buffer::from(ctx, iota);
  Buffer k(ctx, ElementType::Uint32, n), v(ctx, ElementType::Uint32, n);
  const auto restore = [&] {
    k.copy_from(pristine, 0, 0, n);
    if (pairs) v.copy_from(pristine_values, 0, 0, n);
  };
  const Measured m = gpu_timed(
      ctx, budget, [&] { pairs ? sort_by_key(ctx, k, v) : sort(ctx, k); }, restore);
  const auto got = k.to_vector<std::uint32_t>();
  return {m, pairs ? checks::stable_pairs(keys, got, v.to_vector<std::uint32_t>())
                   : checks::same(got, want, "keys")};
}

struct Bench {
  const Context& ctx;
  const PrimitivesBenchOptions& o;
  Report& report;
  PrimitiveTuning tuning;  // --tuning: the Context's for the whole run
  bool cuda = false;

  // Up to o.repeats timed runs, at least 3, fewer once they total twice the slow limit.
  Budget budget() const {
    return {o.warmup, o.repeats, 2 * o.max_seconds_per_run, std::min(3, o.repeats)};
  }
  // CUB times itself with CUDA events.
  Measured cuda_events(double ms) const { return {ms, o.repeats, "CUDA events"}; }

  // One contender at size n: `body` times and checks it (Sweep::attempt).
  void attempt(const std::string& primitive, const std::string& contender,
               const std::string& family, std::size_t n, const std::function<Outcome()>& body) {
    report.points.attempt({primitive, contender, family, n}, bytes_per_element(primitive), body);
  }
  // Attempts `body` once per gpgpu contender: "gpgpu" (the device's default kernels) and,
  // with both paths asked for, the other family ("gpgpu-shared" or "gpgpu-subgroups"), chosen
  // through PrimitiveTuning::subgroups for that run.
  void gpgpu(const std::string& primitive, std::size_t n, const std::function<Outcome()>& body) {
    attempt(primitive, "gpgpu", "gpgpu", n, body);
    if (!o.both_paths) return;
    const bool subgroups = primitive_tuning(ctx).subgroups == 1;
    PrimitiveTuning other = tuning;
    other.subgroups = subgroups ? 0 : 1;
    try {
      set_primitive_tuning(ctx, other);
    } catch (const Error& e) {
      std::cerr << "  (no other kernel family: " << e.what() << ")\n";
      return;
    }
    attempt(primitive, subgroups ? "gpgpu-shared" : "gpgpu-subgroups", "gpgpu", n, body);
    set_primitive_tuning(ctx, tuning);
  }
  // Where the CUDA reference runs (callers are built only with CUB).
  void cub(const std::string& primitive, std::size_t n, const std::function<Outcome()>& body) {
    if (cuda) attempt(primitive, "cub", "cuda", n, body);
  }
  // The parallel CPU contender, unless turned off: call() timed by steady_clock, then check().
  void cpu(const std::string& primitive, std::size_t n, const std::function<void()>& call,
           const std::function<Check()>& check) {
    if (!o.cpu) return;
    attempt(primitive, "cpu", "cpu", n, [&] {
      return Outcome{wall_timed(budget(), call), check()};
    });
  }
};

void bench_reduce(Bench& b, std::size_t n) {
  const auto x = random_floats(n, 0x5eed0000u + static_cast<std::uint32_t>(n), -1.0f, 1.0f);
  const auto [exact, magnitude] = float64_sum(x);
  b.gpgpu("reduce", n, [&] { return gpgpu_reduce(b.ctx, b.budget(), x, exact, magnitude); });
#if GPGPU_BENCH_HAVE_CUB
  b.cub("reduce", n, [&] {
    float got = 0;
    const double ms = cuda_ref::cub_reduce_sum(x, got, b.o.warmup, b.o.repeats);
    // CUB's order is its own; checked against a tree bound of depth 2 log2(n) + 64.
    const int depth = 2 * static_cast<int>(std::ceil(std::log2(static_cast<double>(n)))) + 64;
    return Outcome{b.cuda_events(ms), checks::reduce(got, exact, magnitude, depth)};
  });
#endif
  // Summed in float, as the GPU does, in one chunk per thread: at most n / threads + threads
  // terms in a row.
  double got = 0;
  b.cpu(
      "reduce", n, [&] { got = std::reduce(par, x.begin(), x.end(), 0.0f); },
      [&] { return checks::reduce(got, exact, magnitude, static_cast<int>(n)); });
}

void bench_scan(Bench& b, std::size_t n) {
  const auto x = random_floats(n, 0x5ca00000u + static_cast<std::uint32_t>(n), -1.0f, 1.0f);
  std::vector<float> out(n);
  b.gpgpu("scan", n, [&] { return gpgpu_scan(b.ctx, b.budget(), x); });
#if GPGPU_BENCH_HAVE_CUB
  b.cub("scan", n, [&] {
    const double ms = cuda_ref::cub_inclusive_sum(x, out, b.o.warmup, b.o.repeats);
    return Outcome{b.cuda_events(ms), checks::scan(out, x, static_cast<int>(n))};
  });
#endif
  b.cpu(
      "scan", n, [&] { std::inclusive_scan(par, x.begin(), x.end(), out.begin()); },
      [&] { return checks::scan(out, x, static_cast<int>(n)); });
}

void bench_sort(Bench& b, std::size_t n, bool pairs) {
  const std::string name = pairs ? "sort_pairs" : "sort";
  const auto keys = random_uints(n, 0x50470000u + static_cast<std::uint32_t>(n));
  std::vector<std::uint32_t> iota(n);
  std::iota(iota.begin(), iota.end(), 0u);
  // The reference: the CPU contender's own sort (checked there against std::is_sorted), or
  // the same sort untimed without it.
  std::vector<std::uint32_t> ref_keys = keys, ref_values = iota;
  bool fresh = false;
  const auto cpu_sort = [&] {
    ref_keys = keys;
    ref_values = iota;
    pairs ? cpu::sort_pairs(ref_keys, ref_values)
          : std::sort(par, ref_keys.begin(), ref_keys.end());
  };
  b.cpu(name, n, cpu_sort, [&] {
    fresh = true;
    const bool sorted = std::is_sorted(ref_keys.begin(), ref_keys.end());
    return pairs ? checks::stable_pairs(keys, ref_keys, ref_values)
                 : Check{sorted, sorted ? "sorted" : "not sorted"};
  });
  if (!fresh) cpu_sort();
  b.gpgpu(name, n, [&] { return gpgpu_sort(b.ctx, b.budget(), keys, pairs, ref_keys); });
#if GPGPU_BENCH_HAVE_CUB
  std::vector<std::uint32_t> got_keys(n), got_values(n);
  b.cub(name, n, [&] {
    const double ms =
        pairs ? cuda_ref::cub_sort_pairs(keys, iota, got_keys, got_values, b.o.warmup, b.o.repeats)
              : cuda_ref::cub_sort_keys(keys, got_keys, b.o.warmup, b.o.repeats);
    return Outcome{b.cuda_events(ms), pairs ? checks::stable_pairs(keys, got_keys, got_values)
                                            : checks::same(got_keys, ref_keys, "keys")};
  });
#endif
}

void bench_histogram(Bench& b, std::size_t n) {
  const auto x = random_floats(n, 0x4157u + static_cast<std::uint32_t>(n), 0.0f, 1.0f);
  std::vector<std::uint32_t> want;
  b.cpu(
      "histogram", n, [&] { want = cpu::histogram(x, histogram_bins, 0.0f, 1.0f); },
      [&] {
        const std::uint64_t total = std::accumulate(want.begin(), want.end(), std::uint64_t{0});
        return Check{total == n, fmt::format("{} values counted", total)};
      });
  if (want.empty()) want = cpu::histogram(x, histogram_bins, 0.0f, 1.0f);
  b.gpgpu("histogram", n, [&] {
    const Buffer in = Buffer::from(b.ctx, x);
    Buffer counts(b.ctx, ElementType::Uint32, histogram_bins + 3);
    const Measured m = gpu_timed(b.ctx, b.budget(),
                                 [&] { histogram(b.ctx, in, counts, histogram_bins, 0.0f, 1.0f); });
    return Outcome{m, checks::histogram(counts.to_vector<std::uint32_t>(), want, 0)};
  });
#if GPGPU_BENCH_HAVE_CUB
  b.cub("histogram", n, [&] {
    std::vector<std::uint32_t> got(histogram_bins);
    // CUB bins [0, 1) half-open with its own arithmetic: a value on a bin edge may land
    // one bin over; checked within 0.1% of a bin's expected count.
    const double ms = cuda_ref::cub_histogram_even(x, 0.0f, 1.0f, got, b.o.warmup, b.o.repeats);
    const auto tolerance = static_cast<std::uint32_t>(1 + n / histogram_bins / 1000);
    return Outcome{b.cuda_events(ms),
                   checks::histogram(
                       got, std::span<const std::uint32_t>(want).first(histogram_bins), tolerance)};
  });
#endif
}

// The bandwidth ceilings: the CUDA device copy and a GLSL copy of n uint32s (uvec4s).
void bench_copy(Bench& b, std::size_t n) {
#if GPGPU_BENCH_HAVE_CUDA
  if (b.cuda) {
    b.attempt("copy", "cuda memcpy", "cuda", n, [&] {
      const double gbps = cuda_ref::device_copy_gbps(n * 4);
      return Outcome{Measured{8.0 * static_cast<double>(n) / (gbps * 1e9) * 1e3, 10, "CUDA events"},
                     {true, "cudaMemcpy device to device"}};
    });
  }
#endif
  b.attempt("copy", "gpgpu copy", "gpgpu", n, [&] {
    const auto x = random_uints(n, 7);
    const Buffer in = Buffer::from(b.ctx, x);
    Buffer out(b.ctx, ElementType::Uint32, n);
    const bool vec4 = n % 4 == 0;
    ComputeKernel copy(b.ctx,
                       fmt::format(R"(
        layout(local_size_x = 256) in;
        layout(std430, binding = 0) readonly buffer A {{ {0} a[]; }};
        layout(std430, binding = 1) writeonly buffer B {{ {0} b[]; }};
        void main() {{ uint i = gpgpu_index(); if (i < gpgpu_count) b[i] = a[i]; }})",
                                   vec4 ? "uvec4" : "uint"),
                       {}, vec4 ? "bench copy vec4" : "bench copy");
    const Measured m = gpu_timed(b.ctx, b.budget(), [&] {
      copy.run({{"a", in}, {"b", out}}, vec4 ? n / 4 : n);
    });
    return Outcome{m, checks::same(out.to_vector<std::uint32_t>(), x, "elements")};
  });
}

// ---- The tuning sweep: a few PrimitiveTuning shapes per primitive at 2^26 and 2^28 (what
// fits), gpgpu only, each result checked; the Context's tuning restored afterwards.

std::string describe(const PrimitiveTuning& t, const std::string& primitive) {
  if (primitive == "reduce") {
    return fmt::format("local {} unroll {} trips {}{}", t.reduce_local, t.reduce_unroll,
                       t.reduce_max_trips, t.texel_loads == 1 ? " texels" : "");
  }
  if (primitive == "scan") return fmt::format("local {} scalars {}", t.scan_local, t.scan_scalars);
  if (t.sort_onesweep == 1 && t.subgroups == 1)
    return fmt::format("onesweep local {} keys {}", t.onesweep_local, t.onesweep_keys);
  return fmt::format("{} local {} keys {}", t.sort_serial == 1 ? "serial" : "ranked", t.sort_local,
                     t.sort_keys);
}

struct Variant {
  std::string primitive;
  PrimitiveTuning tuning;
};

// Each primitive's default and the shapes the device takes (set_primitive_tuning validates
// them: shared memory), as primitive_tuning resolves them.
std::vector<Variant> variants(const Context& ctx) {
  std::vector<Variant> v;
  const auto add = [&](const std::string& p, PrimitiveTuning t) {
    try {
      set_primitive_tuning(ctx, t);
      v.push_back({p, primitive_tuning(ctx)});
    } catch (const ArgumentError&) {
    }
  };
  add("reduce", {});
  const int reduce_shapes[][3] = {{256, 8, 16}, {256, 4, 8},  {256, 4, 128}, {512, 4, 16},
                                  {128, 8, 32}, {1024, 4, 8}, {256, 2, 64},  {256, 8, 64}};
  for (const auto& [l, u, trips] : reduce_shapes)
    add("reduce", {.reduce_local = l, .reduce_unroll = u, .reduce_max_trips = trips});
  add("reduce", {.texel_loads = 1});
  add("scan", {});
  const int scan_shapes[][2] = {{256, 8},  {256, 24}, {256, 32}, {128, 32},
                                {512, 16}, {512, 8},  {1024, 8}};
  for (const auto& [l, s] : scan_shapes) add("scan", {.scan_local = l, .scan_scalars = s});
  add("sort", {});
  const int ranked[][2] = {{128, 16}, {512, 16}, {256, 24}, {128, 32}, {256, 32}, {64, 32}};
  for (const auto& [l, k] : ranked)
    add("sort", {.sort_local = l, .sort_keys = k, .sort_serial = 0});
  // Onesweep runs on the subgroup kernels only; elsewhere the row says "ranked".
  const int onesweep[][2] = {{512, 11}, {256, 15}, {256, 16}, {512, 16}, {256, 32}};
  for (const auto& [l, k] : onesweep)
    add("sort", {.sort_serial = 0, .sort_onesweep = 1, .onesweep_local = l, .onesweep_keys = k});
  return v;
}

// PrimitiveTuning's fields: their names (--tuning) and the primitive whose shape each is part
// of (what the sweep keeps of that primitive's fastest variant; "" for the kernel family).
using T = PrimitiveTuning;
struct TuningField {
  const char* name;
  int T::*member;
  const char* shape;
};
constexpr TuningField tuning_fields[] = {{"reduce_local", &T::reduce_local, "reduce"},
                                         {"reduce_unroll", &T::reduce_unroll, "reduce"},
                                         {"reduce_max_trips", &T::reduce_max_trips, "reduce"},
                                         {"texel_loads", &T::texel_loads, "reduce"},
                                         {"scan_local", &T::scan_local, "scan"},
                                         {"scan_scalars", &T::scan_scalars, "scan"},
                                         {"sort_serial", &T::sort_serial, "sort"},
                                         {"sort_local", &T::sort_local, "sort"},
                                         {"sort_keys", &T::sort_keys, "sort"},
                                         {"onesweep_local", &T::onesweep_local, "sort"},
                                         {"onesweep_keys", &T::onesweep_keys, "sort"},
                                         {"subgroups", &T::subgroups, ""},
                                         {"sort_onesweep", &T::sort_onesweep, ""}};

void run_tuning_sweep(const Context& ctx, Report& report, const Budget& few) {
  const PrimitiveTuning saved = primitive_tuning(ctx);
  const auto largest = static_cast<std::size_t>(ctx.info().max_shader_storage_block_size) / 4;
  const auto all = variants(ctx);
  std::map<std::string, std::pair<double, PrimitiveTuning>> fastest;  // ms, at the largest size
  for (int l : {26, 28}) {
    const std::size_t n = std::size_t{1} << l;
    if (n > largest) continue;
    const auto x = random_floats(n, 99, -1.0f, 1.0f);
    const auto [exact, magnitude] = float64_sum(x);
    auto keys = random_uints(n, 98), sorted = keys;
    std::sort(par, sorted.begin(), sorted.end());
    fastest.clear();
    for (const auto& v : all) {
      set_primitive_tuning(ctx, v.tuning);
      const Point p = measure({v.primitive, describe(v.tuning, v.primitive), "gpgpu", n},
                              bytes_per_element(v.primitive), [&] {
                                if (v.primitive == "reduce")
                                  return gpgpu_reduce(ctx, few, x, exact, magnitude);
                                if (v.primitive == "scan") return gpgpu_scan(ctx, few, x);
                                return gpgpu_sort(ctx, few, keys, false, sorted);
                              });
      auto& best = fastest[v.primitive];
      if (p.status == "ok" && p.ms > 0 && (best.first <= 0 || p.ms < best.first))
        best = {p.ms, v.tuning};
      std::cerr << fmt::format("  sweep {} 2^{} {}: {:.4f} ms {}\n", p.group, l, p.contender, p.ms,
                               p.status);
      report.sweep.push_back(p);
    }
  }
  set_primitive_tuning(ctx, saved);
  if (fastest.empty()) return;
  // The fastest correct shapes at the largest size are kept in the disk cache for this device
  // (store_primitive_tuning), so that later processes use them.
  PrimitiveTuning t;
  for (const auto& [primitive, best] : fastest) {
    if (best.first <= 0) continue;
    for (const auto& f : tuning_fields)
      if (primitive == f.shape) t.*f.member = best.second.*f.member;
  }
  store_primitive_tuning(ctx, t);
  std::cerr << "  sweep: the fastest shapes are kept for this device (store_primitive_tuning): "
            << describe(t, "reduce") << "; " << describe(t, "scan") << "; " << describe(t, "sort")
            << "\n";
}

// --tuning "field=value,...": the fields as PrimitiveTuning names them.
PrimitiveTuning parse_tuning(const std::string& text) {
  PrimitiveTuning t;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const auto eq = item.find('=');
    const auto f =
        std::find_if(std::begin(tuning_fields), std::end(tuning_fields),
                     [&](const auto& field) { return item.substr(0, eq) == field.name; });
    const char* end = item.data() + item.size();
    int value = 0;
    if (eq == std::string::npos || f == std::end(tuning_fields) ||
        std::from_chars(item.data() + eq + 1, end, value).ptr != end) {
      throw ArgumentError(fmt::format(
          "bench primitives: --tuning '{}': expected field=integer, a PrimitiveTuning field",
          item));
    }
    t.*(f->member) = value;
  }
  return t;
}

// ---- The report: a table per primitive, the same-run ratios against their targets, the
// sweep; JSON, CSV and charts.

// The targets: gpgpu's speed as a fraction of CUB's (issue 18: scan at 2^24..2^28, sorts at
// 2^24..2^28, reduce at 2^28, histogram from 2^16), and of the CPU algorithms', the yardstick
// on a CPU device (llvmpipe): at least their speed for reduce and scan, no target otherwise.
struct Target {
  const char* primitive;
  double cub, cpu;
};
const Target targets[] = {{"reduce", 0.9, 1.0},
                          {"scan", 0.8, 1.0},
                          {"sort", 0.6, 0.0},
                          {"sort_pairs", 0.5, 0.0},
                          {"histogram", 0.8, 0.0}};

// One row per primitive of the reference's time over the contender's at each size (above 1:
// the contender is faster); nothing at all when the reference did not run (no CUDA device for
// CUB).
void print_ratios(std::ostream& out, const Report& r, const std::string& reference,
                  const std::string& title, double Target::*target,
                  const std::string& contender = "gpgpu") {
  std::vector<std::string> columns{"primitive", "target"};
  for (std::size_t n : r.sizes) columns.push_back(size_label(n));
  Table table("", title, columns);
  for (const auto& t : targets) {
    std::vector<Cell> line{t.primitive, t.*target > 0 ? fmt::format("{:.1f}x", t.*target) : ""};
    bool any = false;
    for (std::size_t n : r.sizes) {
      const Point *g = r.points.find(t.primitive, contender, n, true),
                  *c = r.points.find(t.primitive, reference, n, true);
      line.emplace_back(g && c ? fmt::format("{:.2f}x", c->ms / g->ms) : "");
      any |= g && c;
    }
    if (any) table.add(std::move(line));
  }
  if (!table.empty()) table.print(out, true);
}

void print(std::ostream& out, const Report& r) {
  const RunFacts& f = r.facts;
  out << fmt::format(
      "# gpgpu bench primitives\n\n{} ({}), {}\ncommand: {}\nCPU: {} ({})\nCUDA: {}\n"
      "timing: {}\nload: {} before, {} after\n",
      f.renderer, f.gl_version, f.date, f.command, f.cpu_model, r.cpu_backend, f.cuda, r.timing,
      f.load_before, f.load_after);
  for (const auto& p : primitives_bench_names()) {
    const auto title =
        fmt::format("## {} (GB/s counts {} bytes per element)", p, bytes_per_element(p));
    if (const Table t = r.points.table(p, title, r.sizes); !t.empty()) t.print(out, true);
  }
  // gpgpu, and the other kernel family when the bench timed it (--paths both).
  for (const char* contender : {"gpgpu", "gpgpu-shared", "gpgpu-subgroups"}) {
    print_ratios(out, r, "cub", fmt::format("## {} / CUB (same run)", contender), &Target::cub,
                 contender);
  }
  print_ratios(out, r, "cpu",
               "## gpgpu / parallel CPU (same run; the target on CPU devices: 1.0x for reduce "
               "and scan)",
               &Target::cpu);
  out << "\n";
  r.points.print_problems(out);
  if (!r.sweep.empty()) {
    Table table("", "## tuning sweep (gpgpu only)",
                {"primitive", "n", "tuning", "ms", "GB/s", "status"});
    for (const auto& s : r.sweep) {
      table.add({s.group, size_label(s.n), s.contender, fmt::format("{:.4g}", s.ms),
                 fmt::format("{:.1f}", s.gbps),
                 s.status == "ok" ? "ok" : s.status + ": " + s.note});
    }
    table.print(out, true);
  }
  out << fmt::format("\ntotal {:.1f} s\n", f.seconds);
}

void write_files(const std::filesystem::path& dir, const Report& r) {
  const RunFacts& f = r.facts;
  Table results =
      points_table("primitives", "gpgpu bench primitives", "primitive", r.points.points);
  results.note("command: " + f.command);
  results.note(fmt::format("device: {} ({}), {}", f.renderer, f.gl_version, f.device_kind));
  results.note(fmt::format("CPU: {} ({})", f.cpu_model, r.cpu_backend));
  results.note("CUDA: " + f.cuda);
  results.note("timing: " + r.timing);
  results.note(fmt::format("load: {} before, {} after", f.load_before, f.load_after));
  results.note(fmt::format("sizes: {}; total {:.1f} s", fmt::join(r.sizes, ", "), f.seconds));
  results.write(dir, "", f.renderer, f.date);
  if (r.sweep.empty()) return;
  Table sweep("primitives-sweep", "tuning sweep (gpgpu only)",
              {"primitive", "n", "tuning", "ms", "gbps", "bytes", "status", "note"});
  for (const auto& s : r.sweep)
    sweep.add({s.group, s.n, s.contender, s.ms, s.gbps, s.bytes, s.status, s.note});
  sweep.write(dir, "", f.renderer, f.date);
}

// primitives_chart.dat/.gp and one PNG per primitive (GB/s against n); a line saying what was
// drawn or why not.
std::string draw_charts(const std::filesystem::path& dir, const Report& r) {
  Chart chart(
      dir, "primitives_chart",
      "set logscale x 2\nset format x '2^{%L}'\nset grid\nset key left top\n"
      "set xlabel 'elements n'\nset ylabel 'GB/s (see the report for the bytes counted)'\n");
  for (const auto& p : primitives_bench_names()) {
    r.points.plot(chart, "primitives_chart", p, fmt::format("primitives_{}.png", p),
                  fmt::format("{} — {} ({})", p, r.facts.renderer, r.facts.date.substr(0, 10)),
                  r.sizes);
  }
  return chart.draw();
}

// Prints the report; writes primitives.json and .csv (harness Tables: a row per point, the
// run's facts as notes), primitives-sweep.json and .csv after a sweep, and with `charts`
// primitives_chart.dat/.gp and one PNG per primitive (GB/s against n).
void write_report(const Report& r, const std::filesystem::path& dir, bool charts) {
  std::filesystem::create_directories(dir);
  print(std::cout, r);
  write_files(dir, r);
  std::cout << "wrote " << (dir / "primitives.json").string() << " and primitives.csv\n";
  if (charts) std::cout << draw_charts(dir, r) << "\n";
}

}  // namespace

std::vector<std::string> primitives_bench_names() {
  return {"reduce", "scan", "sort", "sort_pairs", "histogram", "copy"};
}

int run_primitives_bench(const PrimitivesBenchOptions& o, const Context& ctx) {
  const auto names = primitives_bench_names();
  const std::vector<std::string> which = o.primitives.empty() ? names : o.primitives;
  for (const auto& w : which) {
    if (std::find(names.begin(), names.end(), w) == names.end()) {
      throw ArgumentError(
          fmt::format("bench primitives: unknown primitive '{}'; expected one of {}", w,
                      fmt::join(names, ", ")));
    }
  }
  Report report;
  report.points = Sweep(o.max_seconds_per_run);
  const std::string command = o.command_line + (o.tuning.empty() ? "" : " --tuning " + o.tuning);
  report.facts = RunFacts::begin(ctx, command, "%Y-%m-%d %H:%M:%S UTC");
  report.cpu_backend = cpu::backend();
  report.timing =
      ctx.info().is_software
          ? "gpgpu: fenced wall clock (llvmpipe's timer queries do not see shader work); CPU: "
            "steady_clock"
          : "gpgpu: GPU timestamps (gpgpu::Profiler); CUB: CUDA events; CPU: steady_clock";
  Bench b{ctx, o, report, parse_tuning(o.tuning), cuda_reference().ok};
  if (!o.tuning.empty()) set_primitive_tuning(ctx, b.tuning);
#if !GPGPU_BENCH_HAVE_CUB
  if (report.facts.cuda != "not built") report.facts.cuda += " (CUB reference not built)";
#endif
  const auto largest = static_cast<std::size_t>(ctx.info().max_shader_storage_block_size) / 4;
  const std::vector<int> log2s = o.log2_sizes.empty()
                                     ? std::vector<int>{10, 12, 14, 16, 18, 20, 22, 24, 26, 27, 28}
                                     : o.log2_sizes;
  for (int l : log2s) {
    if (l < 1 || l > 31)
      throw ArgumentError(fmt::format("bench primitives: size 2^{} is out of 2^1..2^31", l));
    const std::size_t n = std::size_t{1} << l;
    if (n > largest) {
      std::cerr << fmt::format("skipping 2^{}: the device binds at most {} elements\n", l, largest);
      continue;
    }
    report.sizes.push_back(n);
    std::cerr << fmt::format("n = 2^{}\n", l);
    for (const auto& w : which) {
      if (w == "reduce") bench_reduce(b, n);
      if (w == "scan") bench_scan(b, n);
      if (w == "sort" || w == "sort_pairs") bench_sort(b, n, w == "sort_pairs");
      if (w == "histogram") bench_histogram(b, n);
      if (w == "copy") bench_copy(b, n);
    }
  }
  if (o.sweep) run_tuning_sweep(ctx, report, {o.warmup, o.repeats});
  report.facts.end();
  write_report(report, o.out_dir, o.charts);
  const auto wrong = [](const Point& p) { return p.status == "WRONG"; };
  return std::ranges::any_of(report.points.points, wrong) ||
         std::ranges::any_of(report.sweep, wrong);
}

}  // namespace gpgpu::bench
