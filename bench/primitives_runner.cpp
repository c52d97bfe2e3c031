// `gpgpu bench primitives` (primitives_runner.hpp): per size, each primitive timed and
// checked for every contender, the slow ones stopped at the size where they became too slow.
#include "primitives_runner.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"

#if GPGPU_BENCH_HAVE_CUDA
#include "cuda_matmul.hpp"
#endif
#if GPGPU_BENCH_HAVE_CUB
#include "cuda_primitives.hpp"
#endif

namespace gpgpu::bench {

using primitives_detail::Report;
using primitives_detail::Row;

namespace {

constexpr std::uint32_t histogram_bins = 256;

struct Outcome {
  Measured m;
  checks::Check check;
};

struct Bench {
  const Context& ctx;
  const PrimitivesBenchOptions& o;
  Report& report;
  bool cuda = false;
  std::map<std::string, std::string> stopped;  // "primitive/contender" -> why it stopped growing

  // Up to o.repeats timed runs, at least 3, fewer once they total twice the slow limit.
  Budget budget() const {
    return {o.warmup, o.repeats, 2 * o.max_seconds_per_run, std::min(3, o.repeats)};
  }
  Measured gpu(const std::function<void()>& call, const std::function<void()>& setup = {}) const {
    return time_gpgpu(ctx, budget(), call, setup);
  }
  Measured cpu_time(const std::function<void()>& call) const {
    const auto ms = wall_times(budget(), call);
    return {median(ms), static_cast<int>(ms.size()), "steady_clock"};
  }
  // CUB times itself with CUDA events.
  Measured cuda_events(double ms) const { return {ms, o.repeats, "CUDA events"}; }

  // One contender at size n: `body` times and checks it. A row is added either way: skipped
  // when the contender became too slow at a smaller size, an error when body throws.
  void attempt(const std::string& primitive, const std::string& contender,
               const std::string& family, std::size_t n, const std::function<Outcome()>& body) {
    Row row{primitive, contender, family, n};
    const std::string key = primitive + "/" + contender;
    if (const auto it = stopped.find(key); it != stopped.end()) {
      row.status = "skipped";
      row.note = it->second;
    } else {
      try {
        const Outcome r = body();
        row.ms = r.m.ms;
        row.runs = r.m.runs;
        row.timing = r.m.timing;
        row.bytes = primitives_detail::bytes_per_element(primitive) * static_cast<double>(n);
        row.gbps = gbps(row.bytes, row.ms);
        row.gelements_per_s = gbps(static_cast<double>(n), row.ms);
        row.status = r.check.ok ? "ok" : "WRONG";
        row.note = r.check.note;
        if (row.ms > 1000.0 * o.max_seconds_per_run)
          stopped[key] = fmt::format("n={} took {:.1f} s per run", n, row.ms / 1000);
        std::cerr << fmt::format("  {:<10} {:<8} n={:<10} {:>10.4f} ms {:>8.1f} GB/s  {}\n",
                                 primitive, contender, n, row.ms, row.gbps,
                                 row.status == "ok" ? "" : row.note);
      } catch (const std::exception& e) {
        row.status = "error";
        row.note = e.what();
        std::cerr << fmt::format("  {} {} n={}: error: {}\n", primitive, contender, n, e.what());
      }
    }
    report.rows.push_back(std::move(row));
  }
  // Attempts `body` once per gpgpu contender: "gpgpu" (the device's default kernels) and,
  // with both paths asked for, the other family ("gpgpu-shared" or "gpgpu-subgroups"), chosen
  // through PrimitiveTuning::subgroups for that run.
  void gpgpu(const std::string& primitive, std::size_t n, const std::function<Outcome()>& body) {
    const auto run = [&](const char* contender) {
      attempt(primitive, contender, "gpgpu", n, body);
    };
    run("gpgpu");
    if (!o.both_paths) return;
    const bool subgroups = primitive_tuning(ctx).subgroups == 1;
    PrimitiveTuning other;
    other.subgroups = subgroups ? 0 : 1;
    try {
      set_primitive_tuning(ctx, other);
    } catch (const Error& e) {
      std::cerr << "  (no other kernel family: " << e.what() << ")\n";
      return;
    }
    run(subgroups ? "gpgpu-shared" : "gpgpu-subgroups");
    set_primitive_tuning(ctx, {});
  }
  // The CUB contender, where the CUDA reference runs (callers are built only with CUB).
  void cub(const std::string& primitive, std::size_t n, const std::function<Outcome()>& body) {
    if (cuda) attempt(primitive, "cub", "cuda", n, body);
  }
  // The parallel CPU contender, unless turned off.
  void cpu(const std::string& primitive, std::size_t n, const std::function<Outcome()>& body) {
    if (o.cpu) attempt(primitive, "cpu", "cpu", n, body);
  }
};

void bench_reduce(Bench& b, std::size_t n) {
  const auto x = random_floats(n, 0x5eed0000u + static_cast<std::uint32_t>(n), -1.0f, 1.0f);
  double exact = 0, magnitude = 0;
  for (float v : x) exact += v, magnitude += std::fabs(v);
  b.gpgpu("reduce", n, [&] {
    const Buffer in = Buffer::from(b.ctx, x);
    Buffer out(b.ctx, ElementType::Float32, 1);
    const Measured m = b.gpu([&] { reduce(b.ctx, in, out); });
    const float got = out.to_vector<float>()[0];
    return Outcome{m, checks::reduce(got, exact, magnitude, reduce_error_depth(b.ctx, n))};
  });
#if GPGPU_BENCH_HAVE_CUB
  b.cub("reduce", n, [&] {
    float got = 0;
    const double ms = cuda_ref::cub_reduce_sum(x, got, b.o.warmup, b.o.repeats);
    // CUB's order is its own; checked against a tree bound of depth 2 log2(n) + 64.
    const int depth = 2 * static_cast<int>(std::ceil(std::log2(static_cast<double>(n)))) + 64;
    return Outcome{b.cuda_events(ms), checks::reduce(got, exact, magnitude, depth)};
  });
#endif
  b.cpu("reduce", n, [&] {
    double got = 0;
    const Measured m = b.cpu_time([&] { got = cpu::reduce_sum(x); });
    // Float sums in one chunk per thread: at most n / threads + threads terms in a row.
    return Outcome{m, checks::reduce(got, exact, magnitude, static_cast<int>(n))};
  });
}

void bench_scan(Bench& b, std::size_t n) {
  const auto x = random_floats(n, 0x5ca00000u + static_cast<std::uint32_t>(n), -1.0f, 1.0f);
  std::vector<float> out(n);
  b.gpgpu("scan", n, [&] {
    const Buffer in = Buffer::from(b.ctx, x);
    Buffer result(b.ctx, ElementType::Float32, n);
    const Measured m = b.gpu([&] { inclusive_scan(b.ctx, in, result); });
    result.download(std::span<float>(out));
    return Outcome{m, checks::scan(out, x, scan_error_depth(b.ctx, n))};
  });
#if GPGPU_BENCH_HAVE_CUB
  b.cub("scan", n, [&] {
    const double ms = cuda_ref::cub_inclusive_sum(x, out, b.o.warmup, b.o.repeats);
    return Outcome{b.cuda_events(ms), checks::scan(out, x, static_cast<int>(n))};
  });
#endif
  b.cpu("scan", n, [&] {
    const Measured m = b.cpu_time([&] { cpu::inclusive_sum(x, out); });
    return Outcome{m, checks::scan(out, x, static_cast<int>(n))};
  });
}

void bench_sort(Bench& b, std::size_t n, bool pairs) {
  const std::string name = pairs ? "sort_pairs" : "sort";
  const auto keys = random_uints(n, 0x50470000u + static_cast<std::uint32_t>(n));
  std::vector<std::uint32_t> iota(n);
  std::iota(iota.begin(), iota.end(), 0u);
  // The reference: the CPU contender's own sort (checked there against std::is_sorted).
  std::vector<std::uint32_t> ref_keys = keys, ref_values = iota;
  b.cpu(name, n, [&] {
    std::vector<std::uint32_t> k, v;
    const Measured m = b.cpu_time([&] {
      k = keys;
      v = iota;
      pairs ? cpu::sort_pairs(k, v) : cpu::sort(k);
    });
    ref_keys = k;
    ref_values = v;
    const bool sorted = std::is_sorted(k.begin(), k.end());
    return Outcome{m, pairs ? checks::stable_pairs(keys, k, v)
                            : checks::Check{sorted, sorted ? "sorted" : "not sorted"}};
  });
  if (!b.o.cpu || b.stopped.count(name + "/cpu")) {  // no fresh reference: sort, untimed
    ref_keys = keys;
    ref_values = iota;
    pairs ? cpu::sort_pairs(ref_keys, ref_values) : cpu::sort(ref_keys);
  }
  std::vector<std::uint32_t> got_keys(n), got_values(n);
  b.gpgpu(name, n, [&] {
    const Buffer pristine = Buffer::from(b.ctx, keys), pristine_values = Buffer::from(b.ctx, iota);
    Buffer k(b.ctx, ElementType::Uint32, n), v(b.ctx, ElementType::Uint32, n);
    DeviceCopy copy(b.ctx);
    const auto restore = [&] {
      copy.run(pristine, k);
      if (pairs) copy.run(pristine_values, v);
    };
    const Measured m = b.gpu([&] { pairs ? sort_by_key(b.ctx, k, v) : sort(b.ctx, k); }, restore);
    k.download(std::span<std::uint32_t>(got_keys));
    v.download(std::span<std::uint32_t>(got_values));
    return Outcome{m, pairs ? checks::stable_pairs(keys, got_keys, got_values)
                            : checks::same(got_keys, ref_keys, "keys")};
  });
#if GPGPU_BENCH_HAVE_CUB
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
  b.cpu("histogram", n, [&] {
    const Measured m = b.cpu_time([&] { want = cpu::histogram(x, histogram_bins, 0.0f, 1.0f); });
    const std::uint64_t total = std::accumulate(want.begin(), want.end(), std::uint64_t{0});
    return Outcome{m, {total == n, fmt::format("{} values counted", total)}};
  });
  if (want.empty()) want = cpu::histogram(x, histogram_bins, 0.0f, 1.0f);
  b.gpgpu("histogram", n, [&] {
    const Buffer in = Buffer::from(b.ctx, x);
    Buffer counts(b.ctx, ElementType::Uint32, histogram_bins + 3);
    const Measured m = b.gpu([&] { histogram(b.ctx, in, counts, histogram_bins, 0.0f, 1.0f); });
    const auto got = counts.to_vector<std::uint32_t>();
    return Outcome{m, checks::histogram(got, want, 0)};
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

// The bandwidth ceilings: the CUDA device copy and a GLSL vec4 copy of n floats.
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
    DeviceCopy copy(b.ctx);
    const Measured m = b.gpu([&] { copy.run(in, out); });
    return Outcome{m, checks::same(out.to_vector<std::uint32_t>(), x, "elements")};
  });
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
  report.facts = RunFacts::begin(ctx, o.command_line, "%Y-%m-%d %H:%M:%S UTC");
  report.cpu_backend = cpu::backend();
  report.timing =
      ctx.info().is_software
          ? "gpgpu: fenced wall clock (llvmpipe's timer queries do not see shader work); CPU: "
            "steady_clock"
          : "gpgpu: GPU timestamps (gpgpu::Profiler); CUB: CUDA events; CPU: steady_clock";
  Bench b{ctx, o, report, cuda_reference().ok, {}};
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
  if (o.sweep) run_tuning_sweep(ctx, report, o.warmup, o.repeats);
  report.facts.end();
  std::filesystem::create_directories(o.out_dir);
  primitives_detail::print(std::cout, report);
  primitives_detail::write_files(o.out_dir, report);
  std::cout << "wrote " << (o.out_dir / "primitives.json").string() << " and primitives.csv\n";
  if (o.charts) std::cout << primitives_detail::draw_charts(o.out_dir, report) << "\n";
  bool wrong = false;
  for (const auto& r : report.rows) wrong |= r.status == "WRONG";
  for (const auto& s : report.sweep) wrong |= s.status == "WRONG";
  return wrong ? 1 : 0;
}

}  // namespace gpgpu::bench
