// bench/datapath/datapath_env.hpp — what the data-path benchmarks share: timing, output,
// the CUDA reference's availability.
#pragma once

#include <chrono>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "datapath_runner.hpp"
#include "memory_table.hpp"

namespace gpgpu::bench::datapath {

class Env {
 public:
  Env(Context& context, std::ostream& log, std::filesystem::path out_dir, int warmup, int repeats,
      bool cuda);

  Context& context;
  std::ostream& log;
  std::filesystem::path out_dir;
  int warmup, repeats;
  std::string device, date;

  bool software() const { return context.info().is_software; }
  bool cuda() const { return cuda_ok_; }
  const std::string& cuda_status() const { return cuda_status_; }

  // Median wall milliseconds of `call` (warmup untimed calls first); the call must return
  // with its work complete.
  double median_ms(const std::function<void()>& call, int repeats_override = 0) const;
  void finish(ResultTable& table) const;  // print, and write datapath-<name>.* with out_dir

 private:
  bool cuda_ok_ = false;
  std::string cuda_status_;
};

double median(std::vector<double> values);
std::string ratio(double value, double reference);  // "1.23x", or "-" without a reference

void run_saxpy(Env& env, const std::vector<int>& log2_sizes);
void run_pipeline(Env& env, std::size_t bytes);
void run_matmul(Env& env, const std::vector<int>& sizes);
void run_variants(Env& env, bool quick);
void run_ceiling(Env& env, bool quick);

}  // namespace gpgpu::bench::datapath
