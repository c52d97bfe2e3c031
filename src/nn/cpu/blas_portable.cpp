// The CPU backend's sgemm without a BLAS (blas.hpp), for the browser build: WebAssembly
// has no OpenBLAS, so the products are plain loops ordered for contiguous inner access
// (i-k-j), which the compiler vectorises with wasm SIMD where enabled. Natively blas.cpp
// is used instead.
#include <cstddef>
#include <string>

#include "cpu/blas.hpp"
#include "gpgpu/nn/model.hpp"

namespace gpgpu::nn::detail::blas {

namespace {

float element(const float* m, std::size_t ld, Op op, std::size_t row, std::size_t col) {
  return op == Op::Transpose ? m[col * ld + row] : m[row * ld + col];
}

}  // namespace

void sgemm(Op op_a, Op op_b, std::size_t m, std::size_t n, std::size_t k, float alpha,
           const float* a, std::size_t lda, const float* b, std::size_t ldb, float beta, float* c,
           std::size_t ldc) {
  for (std::size_t i = 0; i < m; ++i) {
    float* row = c + i * ldc;
    for (std::size_t j = 0; j < n; ++j) row[j] = beta == 0.0f ? 0.0f : beta * row[j];
    for (std::size_t p = 0; p < k; ++p) {
      const float scaled = alpha * element(a, lda, op_a, i, p);
      if (op_b == Op::None) {
        const float* brow = b + p * ldb;
        for (std::size_t j = 0; j < n; ++j) row[j] += scaled * brow[j];
      } else {
        for (std::size_t j = 0; j < n; ++j) row[j] += scaled * b[j * ldb + p];
      }
    }
  }
}

SingleThreaded::SingleThreaded() : previous_(1) {}
SingleThreaded::~SingleThreaded() = default;

std::string library() {
  return "portable loops (no BLAS in this build)";
}

}  // namespace gpgpu::nn::detail::blas

namespace gpgpu::nn {

std::string cpu_blas() {
  return detail::blas::library();
}

std::string cpu_blas_hint() {
  return "";
}

}  // namespace gpgpu::nn
