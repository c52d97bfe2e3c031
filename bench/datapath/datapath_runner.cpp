#include "datapath_runner.hpp"

#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "datapath_env.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::bench {

namespace {

bool wants(const std::string& which, const char* name) {
  return which == name || (which == "all" && std::string(name) != "variants");
}

}  // namespace

int run_datapath_bench(const DataPathBenchOptions& options, Context& context) {
  static const char* const names[] = {"saxpy", "pipeline", "matmul", "variants", "all"};
  if (std::find(std::begin(names), std::end(names), options.which) == std::end(names)) {
    throw ArgumentError(fmt::format(
        "bench datapath: unknown benchmark '{}'; choose saxpy, pipeline, matmul, variants or all",
        options.which));
  }
  if (options.warmup < 0 || options.repeats < 1) {
    throw ArgumentError("bench datapath: warmup must be >= 0 and repeats >= 1");
  }
  std::ostream& log = options.log != nullptr ? *options.log : std::cout;
  datapath::Env env(context, log, options.out_dir, options.warmup, options.repeats, options.cuda);
  const bool sw = env.software();
  log << fmt::format("gpgpu data-path benchmarks on {} ({}), {}\n", context.info().renderer,
                     context.info().version, env.date);
  auto saxpy = options.saxpy_log2;
  if (saxpy.empty()) {
    saxpy = options.quick ? std::vector<int>{10, 16}
            : sw          ? std::vector<int>{10, 16, 20, 22}
                          : std::vector<int>{10, 16, 20, 24, 26};
  }
  std::size_t pipeline = options.pipeline_bytes;
  if (pipeline == 0) pipeline = (options.quick ? 16 : sw ? 64 : 1024) * (std::size_t{1} << 20);
  auto sizes = options.matmul_sizes;
  if (sizes.empty()) {
    sizes = options.quick ? std::vector<int>{128, 256}
            : sw          ? std::vector<int>{256, 512, 1024}
                          : std::vector<int>{1024, 2048, 4096, 8192};
  }
  if (wants(options.which, "saxpy")) datapath::run_saxpy(env, saxpy);
  if (wants(options.which, "pipeline")) datapath::run_pipeline(env, pipeline);
  if (wants(options.which, "matmul")) datapath::run_matmul(env, sizes);
  if (options.which == "variants") datapath::run_variants(env, options.quick);
  return 0;
}

int run_ceiling_bench(const CeilingBenchOptions& options, Context& context) {
  std::ostream& log = options.log != nullptr ? *options.log : std::cout;
  datapath::Env env(context, log, options.out_dir, options.warmup, options.repeats, false);
  log << fmt::format("gpgpu stage ceilings on {} ({}), {}\n", context.info().renderer,
                     context.info().version, env.date);
  datapath::run_ceiling(env, options.quick);
  return 0;
}

}  // namespace gpgpu::bench
