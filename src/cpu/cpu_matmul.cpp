// CPU matrix multiplication baselines and the float64 reference.
//
// The loops are those of seed 003's speed test, generalised from square `size` to
// m x k x n and indexed with std::ptrdiff_t so that large matrices cannot overflow an int.
// They are compiled as written: -O3 without -ffast-math (see CMakeLists.txt), so the
// float32 sums are not reassociated or vectorised across i — that is the loop the seed
// measured, and what we report. Each kernel is kept out of line so that a benchmark times
// the loop itself, not whatever a caller's inlining makes of it.
#include "gpgpu/cpu_matmul.hpp"

#include <cblas.h>

#include <cstddef>
#include <string>
#include <vector>

#include "gpgpu/error.hpp"

namespace gpgpu::cpu {
namespace {

std::string matrix_sizes(const char* name, std::size_t rows, std::size_t cols) {
  return std::string(name) + " (" + std::to_string(rows) + " x " + std::to_string(cols) + ")";
}

void check_span(const char* function, const char* argument, std::size_t size, const char* matrix,
                std::size_t rows, std::size_t cols) {
  if (size < rows * cols) {
    throw ArgumentError(std::string("gpgpu::cpu::") + function + ": " + argument + " holds " +
                        std::to_string(size) + " elements, but " +
                        matrix_sizes(matrix, rows, cols) + " needs " + std::to_string(rows * cols));
  }
}

void check_dimensions(const char* function, int m, int k, int n) {
  if (m < 0 || k < 0 || n < 0) {
    throw ArgumentError(std::string("gpgpu::cpu::") + function +
                        ": sizes must not be negative, found m = " + std::to_string(m) +
                        ", k = " + std::to_string(k) + ", n = " + std::to_string(n));
  }
}

template <class Output>
void check_matmul_arguments(const char* function, std::span<const float> a,
                            std::span<const float> b, std::span<Output> c, int m, int k, int n) {
  check_dimensions(function, m, k, n);
  const auto rows = static_cast<std::size_t>(m);
  const auto inner = static_cast<std::size_t>(k);
  const auto cols = static_cast<std::size_t>(n);
  check_span(function, "a", a.size(), "A", rows, inner);
  check_span(function, "b", b.size(), "B", inner, cols);
  check_span(function, "c", c.size(), "C", rows, cols);
}

[[gnu::noinline]] void naive_loop(const float* A, const float* B, float* C, std::ptrdiff_t m,
                                  std::ptrdiff_t k, std::ptrdiff_t n) {
  for (std::ptrdiff_t row = 0; row < m; row++) {
    for (std::ptrdiff_t col = 0; col < n; col++) {
      float sum = 0.0f;
      for (std::ptrdiff_t i = 0; i < k; i++) {
        sum += A[row * k + i] * B[i * n + col];
      }
      C[row * n + col] = sum;
    }
  }
}

// Seed 003, "C++のコードの改善" before the change.
[[gnu::noinline]] void openmp_loop(const float* A, const float* B, float* C, std::ptrdiff_t m,
                                   std::ptrdiff_t k, std::ptrdiff_t n) {
#pragma omp parallel for
  for (std::ptrdiff_t row = 0; row < m; row++) {
    for (std::ptrdiff_t col = 0; col < n; col++) {
      float sum = 0.0f;
      for (std::ptrdiff_t i = 0; i < k; i++) {
        sum += A[row * k + i] * B[i * n + col];
      }
      C[row * n + col] = sum;
    }
  }
}

// Seed 003, after the change: BT is B transposed (n x k), read along i.
[[gnu::noinline]] void openmp_transposed_loop(const float* A, const float* B, float* C,
                                              std::ptrdiff_t m, std::ptrdiff_t k,
                                              std::ptrdiff_t n) {
  std::vector<float> transposed(static_cast<std::size_t>(n * k));
  float* BT = transposed.data();
#pragma omp parallel for
  for (std::ptrdiff_t col = 0; col < n; col++) {
    for (std::ptrdiff_t i = 0; i < k; i++) {
      BT[col * k + i] = B[i * n + col];
    }
  }
#pragma omp parallel for
  for (std::ptrdiff_t row = 0; row < m; row++) {
    for (std::ptrdiff_t col = 0; col < n; col++) {
      float sum = 0.0f;
      for (std::ptrdiff_t i = 0; i < k; i++) {
        sum += A[row * k + i] * BT[col * k + i];
      }
      C[row * n + col] = sum;
    }
  }
}

[[gnu::noinline]] void reference_loop(const float* A, const float* B, double* C, std::ptrdiff_t m,
                                      std::ptrdiff_t k, std::ptrdiff_t n) {
  // Row by row, i outer and col inner so that B and C are read along rows; each entry
  // still accumulates its k products in the order i = 0..k-1, as reference_entry_f64 does.
#pragma omp parallel for
  for (std::ptrdiff_t row = 0; row < m; row++) {
    double* c_row = C + row * n;
    for (std::ptrdiff_t col = 0; col < n; col++) c_row[col] = 0.0;
    for (std::ptrdiff_t i = 0; i < k; i++) {
      const double a = A[row * k + i];
      const float* b_row = B + i * n;
      for (std::ptrdiff_t col = 0; col < n; col++) c_row[col] += a * double{b_row[col]};
    }
  }
}

}  // namespace

void matmul_naive(std::span<const float> a, std::span<const float> b, std::span<float> c, int m,
                  int k, int n) {
  check_matmul_arguments("matmul_naive", a, b, c, m, k, n);
  naive_loop(a.data(), b.data(), c.data(), m, k, n);
}

void matmul_openmp(std::span<const float> a, std::span<const float> b, std::span<float> c, int m,
                   int k, int n) {
  check_matmul_arguments("matmul_openmp", a, b, c, m, k, n);
  openmp_loop(a.data(), b.data(), c.data(), m, k, n);
}

void matmul_openmp_transposed(std::span<const float> a, std::span<const float> b,
                              std::span<float> c, int m, int k, int n) {
  check_matmul_arguments("matmul_openmp_transposed", a, b, c, m, k, n);
  openmp_transposed_loop(a.data(), b.data(), c.data(), m, k, n);
}

void matmul_openblas(std::span<const float> a, std::span<const float> b, std::span<float> c, int m,
                     int k, int n) {
  check_matmul_arguments("matmul_openblas", a, b, c, m, k, n);
  if (m == 0 || n == 0) return;
  // BLAS requires leading dimensions >= 1 even when a matrix is empty.
  const int lda = k > 0 ? k : 1;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a.data(), lda, b.data(), n,
              0.0f, c.data(), n);
}

void matmul_reference_f64(std::span<const float> a, std::span<const float> b, std::span<double> c,
                          int m, int k, int n) {
  check_matmul_arguments("matmul_reference_f64", a, b, c, m, k, n);
  reference_loop(a.data(), b.data(), c.data(), m, k, n);
}

double reference_entry_f64(std::span<const float> a, std::span<const float> b, int k, int n,
                           int row, int col) {
  const char* function = "reference_entry_f64";
  check_dimensions(function, 0, k, n);
  if (row < 0) {
    throw ArgumentError("gpgpu::cpu::reference_entry_f64: row = " + std::to_string(row) +
                        " is negative");
  }
  if (col < 0 || col >= n) {
    throw ArgumentError(std::string("gpgpu::cpu::reference_entry_f64: col = ") +
                        std::to_string(col) + " is outside B's " + std::to_string(n) + " columns");
  }
  const auto inner = static_cast<std::size_t>(k);
  const auto cols = static_cast<std::size_t>(n);
  check_span(function, "a", a.size(), "A up to row", static_cast<std::size_t>(row) + 1, inner);
  check_span(function, "b", b.size(), "B", inner, cols);
  double sum = 0.0;
  for (std::size_t i = 0; i < inner; i++) {
    sum += double{a[static_cast<std::size_t>(row) * inner + i]} *
           double{b[i * cols + static_cast<std::size_t>(col)]};
  }
  return sum;
}

int openblas_threads() {
  return openblas_get_num_threads();
}

std::string openblas_config() {
  const char* config = openblas_get_config();
  return config != nullptr ? config : "";
}

}  // namespace gpgpu::cpu
