// gpgpu/cpu_matmul.hpp — CPU matrix multiplication: the baselines the GPU kernels are
// measured against, and the float64 truth they are checked against.
//
// Part of the separate gpgpu::cpu library (OpenMP + OpenBLAS), so that the GL core does
// not depend on either. All matrices are row-major; every function computes
// C (m x n) = A (m x k) * B (k x n). Spans may be longer than needed; a span shorter than
// its matrix, or a negative size, throws gpgpu::ArgumentError naming the argument and the
// sizes, before anything is written.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace gpgpu::cpu {

// Single thread, the textbook triple loop (row, col, i), float32 accumulation.
void matmul_naive(std::span<const float> a, std::span<const float> b, std::span<float> c, int m,
                  int k, int n);

// The C++ loop of gpgpu.js's speed test: the triple loop with "#pragma omp parallel for"
// over rows, float32 accumulation. Its inner loop walks B with a stride of n floats.
void matmul_openmp(std::span<const float> a, std::span<const float> b, std::span<float> c, int m,
                   int k, int n);

// Seed 003's improved loop: B is transposed first (the transpose is part of the call and so
// of any timing of it), then the inner loop reads both operands contiguously.
void matmul_openmp_transposed(std::span<const float> a, std::span<const float> b,
                              std::span<float> c, int m, int k, int n);

// OpenBLAS cblas_sgemm.
void matmul_openblas(std::span<const float> a, std::span<const float> b, std::span<float> c, int m,
                     int k, int n);

// The truth for tests: every product of two floats is exact in double, so the only error
// is float64 summation, about k * 2^-53 relative to sum |a_ik| |b_kj|, far below anything a
// float32 tolerance can see. Row-parallel with OpenMP; each entry is summed in the same
// order (i = 0..k-1) whatever the thread count, so results are reproducible.
void matmul_reference_f64(std::span<const float> a, std::span<const float> b, std::span<double> c,
                          int m, int k, int n);

// One entry of the float64 reference, for sampled checks of sizes too big to compute whole.
double reference_entry_f64(std::span<const float> a, std::span<const float> b, int k, int n,
                           int row, int col);

// @{
// Threads OpenBLAS uses, and its build configuration (version, kernel, threading model),
// for benchmark reports.
int openblas_threads();
std::string openblas_config();
// @}

}  // namespace gpgpu::cpu
