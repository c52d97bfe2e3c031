// bench/datapath/datapath.hpp — the data-path benchmarks (datapath_runner.hpp), each a
// function over one harness Session whose tables go to datapath-<name>.json and .csv.
#pragma once

#include <vector>

#include "datapath_runner.hpp"
#include "harness.hpp"

namespace gpgpu::bench::datapath {

// y += alpha x, the kernel of the SAXPY round trips (datapath_saxpy, datapath_variants).
inline constexpr const char* saxpy_source = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
uniform float alpha;
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] += alpha * x[i]; })";

void run_saxpy(Session& env, const std::vector<int>& log2_sizes);
void run_pipeline(Session& env, std::size_t bytes);
void run_matmul(Session& env, const std::vector<int>& sizes);
void run_variants(Session& env, bool quick);
void run_ceiling(Session& env, bool quick);

}  // namespace gpgpu::bench::datapath
