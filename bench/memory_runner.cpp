#include "memory_runner.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iostream>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "gpgpu/profiler.hpp"
#include "gpgpu/transfer_queue.hpp"
#include "memory_bench_env.hpp"

#ifdef GPGPU_BENCH_HAVE_CUDA
#include "cuda_matmul.hpp"
#endif

namespace gpgpu::bench {

namespace {

constexpr const char* names[] = {"transfer",  "bandwidth", "transpose", "soa",
                                 "workgroup", "all",       nullptr};

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

MemoryBenchOptions resolve(MemoryBenchOptions o, const DeviceInfo& info) {
  if (o.warmup < 0 || o.repeats < 1) {
    throw ArgumentError(fmt::format("bench memory: warmup {} must be >= 0 and repeats {} >= 1",
                                    o.warmup, o.repeats));
  }
  const bool sw = info.is_software;
  const std::size_t mib = std::size_t{1} << 20;
  if (o.transfer_max_bytes == 0)
    o.transfer_max_bytes = o.quick ? 4 * mib : (sw ? 64 * mib : 1024 * mib);
  if (o.bandwidth_floats == 0) {
    o.bandwidth_floats =
        o.quick ? std::size_t{1} << 20 : (sw ? std::size_t{1} << 24 : std::size_t{1} << 28);
  }
  // One array must fit one storage block.
  const auto block_floats = static_cast<std::size_t>(info.max_shader_storage_block_size) / 4;
  o.bandwidth_floats = std::min(o.bandwidth_floats, block_floats / 4 * 4);
  if (o.transpose_n == 0) o.transpose_n = o.quick ? 256 : (sw ? 1024 : 8192);
  if (o.particles == 0)
    o.particles =
        o.quick ? std::size_t{1} << 14 : (sw ? std::size_t{1} << 20 : std::size_t{1} << 24);
  if (o.transfer_max_bytes < 4 || o.bandwidth_floats < 1024 || o.transpose_n < 4 ||
      o.particles < 64) {
    throw ArgumentError(
        "bench memory: sizes too small (transfer >= 4 bytes, bandwidth >= 1024 "
        "floats, transpose n >= 4, particles >= 64)");
  }
  return o;
}

}  // namespace

const char* const* memory_bench_names() {
  return names;
}

Cell ratio(double value, double reference) {
  if (reference <= 0 || value <= 0) return Cell::missing();
  Cell cell(value / reference);
  cell.text = fmt::format("{:.2f}x", value / reference);
  return cell;
}

BenchEnv::BenchEnv(Context& ctx, const MemoryBenchOptions& o)
    : context(ctx),
      options(resolve(o, ctx.info())),
      log(o.log != nullptr ? *o.log : std::cout),
      device(ctx.info().renderer),
      date(utc_now()) {
#ifdef GPGPU_BENCH_HAVE_CUDA
  if (!options.cuda) {
    cuda_status_ = "CUDA comparison turned off";
  } else {
    std::string why;
    cuda_ok_ = cuda_ref::available(&why);
    cuda_status_ =
        cuda_ok_ ? "CUDA reference on " + cuda_ref::device_name() : "no CUDA comparison: " + why;
  }
#else
  cuda_status_ = "no CUDA comparison: gpgpu was built without the CUDA reference (gpgpu_cuda_ref)";
#endif
}

Timing BenchEnv::measure(const std::function<void()>& call) const {
  for (int i = 0; i < options.warmup; ++i) call();
  Profiler profiler(context);
  for (int i = 0; i < options.repeats; ++i) {
    auto scope = profiler.scope("call");
    call();
  }
  const auto s = profiler.stats("call");
  return {s.gpu_samples > 0 ? s.gpu_median_ms : -1, s.wall_median_ms};
}

double BenchEnv::cuda_pinned_gbps([[maybe_unused]] std::size_t bytes,
                                  [[maybe_unused]] bool host_to_device) const {
#ifdef GPGPU_BENCH_HAVE_CUDA
  if (cuda_ok_) return cuda_ref::pinned_copy_gbps(bytes, host_to_device);
#endif
  return -1;
}

double BenchEnv::cuda_device_copy_gbps([[maybe_unused]] std::size_t bytes) const {
#ifdef GPGPU_BENCH_HAVE_CUDA
  if (cuda_ok_) return cuda_ref::device_copy_gbps(bytes);
#endif
  return -1;
}

double BenchEnv::gl_copy_gbps(const Buffer& from, Buffer& to) const {
  TransferQueue queue(context);
  const std::size_t n = std::min(from.size(), to.size());
  const Timing t = measure([&] { queue.copy(from, to, 0, 0, n).wait(); });
  return gbps(2.0 * static_cast<double>(n) * 4, t.kernel_ms());
}

void BenchEnv::finish(const ResultTable& table) const {
  table.print(log);
  if (!options.out_dir.empty()) table.write(options.out_dir, device, date);
}

int run_memory_bench(const MemoryBenchOptions& options, Context& context) {
  const std::string which = options.which;
  if (std::none_of(std::begin(names), std::end(names) - 1,
                   [&](const char* n) { return which == n; })) {
    throw ArgumentError(fmt::format(
        "bench memory: unknown benchmark '{}'; choose transfer, bandwidth, transpose, soa, "
        "workgroup or all",
        which));
  }
  BenchEnv env(context, options);
  const auto& o = env.options;
  env.log << fmt::format(
      "gpgpu memory benchmarks on {} ({}), {}\n"
      "medians of {} runs after {} warm-up runs; {}\n",
      env.device, context.info().version, env.date, o.repeats, o.warmup, env.cuda_status());
  const bool all = which == "all";
  if (all || which == "transfer") run_transfer_bench(env);
  if (all || which == "bandwidth") run_bandwidth_bench(env);
  if (all || which == "transpose") run_transpose_bench(env);
  if (all || which == "soa") run_soa_bench(env);
  if (all || which == "workgroup") run_workgroup_bench(env);
  if (!o.out_dir.empty()) env.log << "\nresults written to " << o.out_dir.string() << "\n";
  return 0;
}

}  // namespace gpgpu::bench
