// bench/datapath/datapath_runner.hpp — the data-path benchmarks, callable from the CLI
// (`gpgpu bench datapath`: saxpy, pipeline, matmul, and variants, which "all" leaves out;
// `gpgpu bench ceiling`). What each times: docs/data-path.md, "Benchmarks". Tables go to the
// log and, with an out_dir, to datapath-<name>.json and .csv; times are the wall clock around
// what a user calls, median of `repeats` after `warmup`.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "gpgpu/context.hpp"
#include "gpgpu/matmul.hpp"
#include "harness.hpp"

namespace gpgpu::bench {

struct DataPathBenchOptions {
  std::string which = "all";  // saxpy, pipeline, matmul, variants, or all (all but variants)
  std::filesystem::path out_dir;
  int warmup = 2;
  int repeats = 7;
  bool quick = false;              // the smallest sizes (a smoke test)
  std::vector<int> saxpy_log2;     // empty: 10,16,20,24,26 on a GPU; 10,16,20,22 on a CPU
  std::size_t pipeline_bytes = 0;  // 0: 1 GiB on a GPU, 64 MiB on a CPU
  std::vector<int> matmul_sizes;   // empty: 1024..8192 on a GPU; 256,512,1024 on a CPU
  bool cuda = true;                // compare with CUDA when it is built and a device is there
};

int run_datapath_bench(const DataPathBenchOptions& options, Context& context);

// Medians of 5 runs after 1 warm-up.
int run_ceiling_bench(const std::filesystem::path& out_dir, bool quick, Context& context);

}  // namespace gpgpu::bench

namespace gpgpu::bench::datapath {

void run_saxpy(Session& env, const std::vector<int>& log2_sizes);
void run_pipeline(Session& env, std::size_t bytes);
void run_variants(Session& env, bool quick);

// 2 n^3 FLOP in `ms` as GFLOPS; -1 without a time.
double matmul_gflops(int n, double ms);
// The kernel GFLOPS of an n x n x n MatmulPlan with `options` on Buffers of 0.5s, median of 5
// runs after 1 (kernel_ms: by the plan's GPU timer where `gpu`); throws gpgpu::Error when C is
// wrong. `tuning`: where to put the tuning the plan ran.
double halves_matmul_gflops(Session& env, int n, const MatmulOptions& options, bool gpu,
                            std::string* tuning = nullptr);

}  // namespace gpgpu::bench::datapath
