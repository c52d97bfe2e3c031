// `gpgpu bench memory` (memory_runner.hpp): the sizes resolved for the device, then the
// chosen benchmarks on one harness Session.
#include "memory_runner.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "gpgpu/transfer_queue.hpp"
#if GPGPU_BENCH_HAVE_CUDA
#include "cuda_matmul.hpp"
#endif

namespace gpgpu::bench {

namespace {

MemoryBenchOptions resolve(MemoryBenchOptions o, const DeviceInfo& info) {
  const bool sw = info.is_software;
  const std::size_t mib = std::size_t{1} << 20;
  const auto pick = [&](std::size_t& value, std::size_t quick, std::size_t cpu, std::size_t gpu) {
    if (value == 0) value = o.quick ? quick : sw ? cpu : gpu;
  };
  pick(o.transfer_max_bytes, 4 * mib, 64 * mib, 1024 * mib);
  pick(o.bandwidth_floats, std::size_t{1} << 20, std::size_t{1} << 24, std::size_t{1} << 28);
  pick(o.transpose_n, 256, 1024, 8192);
  pick(o.particles, std::size_t{1} << 14, std::size_t{1} << 20, std::size_t{1} << 24);
  // One array must fit one storage block.
  const auto block_floats = static_cast<std::size_t>(info.max_shader_storage_block_size) / 4;
  o.bandwidth_floats = std::min(o.bandwidth_floats, block_floats / 4 * 4);
  if (o.bandwidth_floats % 4 != 0) {
    throw ArgumentError(fmt::format(
        "bench memory: --floats {} is not a multiple of 4 (the vec4 kernels cover every float)",
        o.bandwidth_floats));
  }
  if (o.transfer_max_bytes < 4 || o.bandwidth_floats < 1024 || o.transpose_n < 4 ||
      o.particles < 64) {
    throw ArgumentError(
        "bench memory: sizes too small (transfer >= 4 bytes, bandwidth >= 1024 "
        "floats, transpose n >= 4, particles >= 64)");
  }
  return o;
}

}  // namespace

MemoryEnv::MemoryEnv(Context& ctx, const MemoryBenchOptions& given)
    : Session(ctx, {given.out_dir, "memory-", given.warmup, given.repeats, given.cuda, given.log}),
      o(resolve(given, ctx.info())) {}

double MemoryEnv::cuda_pinned_gbps([[maybe_unused]] std::size_t bytes,
                                   [[maybe_unused]] bool host_to_device) const {
#if GPGPU_BENCH_HAVE_CUDA
  if (cuda.ok) return cuda_ref::pinned_copy_gbps(bytes, host_to_device);
#endif
  return -1;
}

double MemoryEnv::cuda_device_copy_gbps([[maybe_unused]] std::size_t bytes) const {
#if GPGPU_BENCH_HAVE_CUDA
  if (cuda.ok) return cuda_ref::device_copy_gbps(bytes);
#endif
  return -1;
}

double MemoryEnv::gl_copy_gbps(const Buffer& from, Buffer& to) const {
  TransferQueue queue(context);
  const std::size_t n = std::min(from.size(), to.size());
  const Timing t = profile([&] { queue.copy(from, to, 0, 0, n).wait(); });
  return gbps(2.0 * static_cast<double>(n) * 4, t.kernel_ms());
}

int run_memory_bench(const MemoryBenchOptions& options, Context& context) {
  using Bench = void (*)(MemoryEnv&);
  const std::pair<const char*, Bench> benches[] = {{"transfer", run_transfer_bench},
                                                   {"bandwidth", run_bandwidth_bench},
                                                   {"transpose", run_transpose_bench},
                                                   {"soa", run_soa_bench},
                                                   {"workgroup", run_workgroup_bench}};
  const std::string& which = options.which;
  if (which != "all" && std::none_of(std::begin(benches), std::end(benches),
                                     [&](const auto& b) { return which == b.first; })) {
    throw ArgumentError(fmt::format(
        "bench memory: unknown benchmark '{}'; choose transfer, bandwidth, transpose, soa, "
        "workgroup or all",
        which));
  }
  MemoryEnv env(context, options);
  env.log << fmt::format(
      "gpgpu memory benchmarks on {} ({}), {}\n"
      "medians of {} runs after {} warm-up runs; CUDA reference: {}\n",
      env.device, context.info().version, env.date, env.o.repeats, env.o.warmup, env.cuda.status);
  for (const auto& [name, run] : benches) {
    if (which == "all" || which == name) run(env);
  }
  if (!env.o.out_dir.empty()) env.log << "\nresults written to " << env.o.out_dir.string() << "\n";
  return 0;
}

}  // namespace gpgpu::bench
