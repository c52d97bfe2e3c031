// bench/matmul_contenders.hpp — the things the matmul benchmark times: gpgpu's methods, the
// CPU references and CUDA, behind one interface. Internal to gpgpu_bench_matmul.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "gpgpu/context.hpp"
#include "harness.hpp"

namespace gpgpu::bench::detail {

// One size's inputs, row-major: A is m x k, B is k x n.
struct BenchProblem {
  int m = 0, k = 0, n = 0;
  std::vector<float> a, b;
};

struct Measurement {
  std::vector<double> kernel_ms;  // one per timed run (CUDA: its median)
  // CPU time this process used during each kernel run (all its threads, llvmpipe's
  // included); empty where it means nothing (CUDA).
  std::vector<double> kernel_cpu_ms;
  std::vector<double> wall_ms;              // end to end, host arrays in and out
  std::string kernel_clock;                 // gl_time_elapsed, wall_glfinish, cuda_event, wall
  std::vector<std::vector<float>> results;  // every C to check against float64
  std::string detail;                       // e.g. the tuning a gpgpu method ran with
};

// A thing timed: `measure` warms up and times one size (Budget::max_seconds for all its timed
// runs together) and throws gpgpu::Error if the method fails; `unavailable` says why it cannot
// run here (not implemented, no CUDA device...), empty when it can.
struct Contender {
  std::string name, family;  // family: "gl", "cpu" or "cuda"
  std::string unavailable;
  std::function<Measurement(const BenchProblem&, const Budget&)> measure;
};

// Every name, in report order.
std::vector<std::string> contender_names();
// Throws gpgpu::ArgumentError for an unknown name.
Contender make_contender(const std::string& name, gpgpu::Context& context);

}  // namespace gpgpu::bench::detail
