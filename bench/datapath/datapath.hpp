// bench/datapath/datapath.hpp — the data-path benchmarks (datapath_runner.hpp), each a
// function over one harness Session whose tables go to datapath-<name>.json and .csv.
#pragma once

#include <vector>

#include "datapath_runner.hpp"
#include "harness.hpp"

namespace gpgpu::bench::datapath {

void run_saxpy(Session& env, const std::vector<int>& log2_sizes);
void run_pipeline(Session& env, std::size_t bytes);
void run_matmul(Session& env, const std::vector<int>& sizes);
void run_variants(Session& env, bool quick);
void run_ceiling(Session& env, bool quick);

}  // namespace gpgpu::bench::datapath
