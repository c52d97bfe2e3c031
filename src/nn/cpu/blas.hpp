// Internal: the CPU backend's GEMMs, through OpenBLAS's cblas_sgemm (linked to gpgpu_nn:
// see src/nn/CMakeLists.txt for why). Matrices are row-major with leading dimensions, as
// the backend's arrays lie in memory: a stage passes views into its activations and
// parameters, never copies.
#pragma once

#include <cstddef>
#include <string>

namespace gpgpu::nn::detail::blas {

enum class Op { None, Transpose };

// C (m x n) = alpha op(A) op(B) + beta C, op(A) m x k and op(B) k x n. Throws LimitError
// when an extent does not fit the BLAS's int.
void sgemm(Op op_a, Op op_b, std::size_t m, std::size_t n, std::size_t k, float alpha,
           const float* a, std::size_t lda, const float* b, std::size_t ldb, float beta, float* c,
           std::size_t ldc);

// While alive, OpenBLAS runs every call on the calling thread only: the backend's own pool
// calls it from all its threads at once, and OpenBLAS's threads would only compete with
// them for the same cores. The previous setting comes back on destruction, so a
// gpgpu::matmul on the host BLAS elsewhere in the process keeps all its threads.
class SingleThreaded {
 public:
  SingleThreaded();
  ~SingleThreaded();
  SingleThreaded(const SingleThreaded&) = delete;
  SingleThreaded& operator=(const SingleThreaded&) = delete;

 private:
  int previous_;
};

// "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY SkylakeX MAX_THREADS=64", for reports.
std::string library();

}  // namespace gpgpu::nn::detail::blas
