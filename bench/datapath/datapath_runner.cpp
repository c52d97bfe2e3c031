// `gpgpu bench datapath` and `gpgpu bench ceiling` (datapath_runner.hpp): sizes for the
// device, then each benchmark on one harness Session.
#include "datapath_runner.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::bench {

int run_datapath_bench(const DataPathBenchOptions& o, Context& context) {
  static const char* const names[] = {"saxpy", "pipeline", "matmul", "variants", "all"};
  if (std::find(std::begin(names), std::end(names), o.which) == std::end(names)) {
    throw ArgumentError(fmt::format(
        "bench datapath: unknown benchmark '{}'; choose saxpy, pipeline, matmul, variants or all",
        o.which));
  }
  Session env(context, {o.out_dir, "datapath-", o.warmup, o.repeats, o.cuda});
  env.log << fmt::format("gpgpu data-path benchmarks on {} ({}), {}\n", env.device,
                         context.info().version, env.date);
  const auto pick = [&](const auto& given, const auto& quick, const auto& cpu, const auto& gpu) {
    return !given.empty() ? given : o.quick ? quick : env.software() ? cpu : gpu;
  };
  using Sizes = std::vector<int>;
  const auto mib = std::size_t{1} << 20;
  const auto wants = [&](const std::string& name) {
    return o.which == name || (o.which == "all" && name != "variants");
  };
  if (wants("saxpy"))
    datapath::run_saxpy(
        env, pick(o.saxpy_log2, Sizes{10, 16}, Sizes{10, 16, 20, 22}, Sizes{10, 16, 20, 24, 26}));
  if (wants("pipeline"))
    datapath::run_pipeline(env, o.pipeline_bytes != 0 ? o.pipeline_bytes
                                : o.quick             ? 16 * mib
                                : env.software()      ? 64 * mib
                                                      : 1024 * mib);
  if (wants("matmul"))
    datapath::run_matmul(env, pick(o.matmul_sizes, Sizes{128, 256}, Sizes{256, 512, 1024},
                                   Sizes{1024, 2048, 4096, 8192}));
  if (wants("variants")) datapath::run_variants(env, o.quick);
  return 0;
}

int run_ceiling_bench(const std::filesystem::path& out_dir, bool quick, Context& context) {
  Session env(context, {out_dir, "datapath-", 1, 5, false});
  env.log << fmt::format("gpgpu stage ceilings on {} ({}), {}\n", env.device,
                         context.info().version, env.date);
  datapath::run_ceiling(env, quick);
  return 0;
}

}  // namespace gpgpu::bench
