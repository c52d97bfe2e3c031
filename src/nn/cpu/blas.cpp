// The CPU backend's sgemm and OpenBLAS thread control (blas.hpp).
#include "cpu/blas.hpp"

#include <cblas.h>

#include <climits>
#include <cstdlib>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "gpgpu/nn/model.hpp"

namespace gpgpu::nn::detail::blas {

namespace {

int as_int(std::size_t v, const char* what) {
  if (v > static_cast<std::size_t>(INT_MAX)) {
    throw LimitError(
        fmt::format("nn cpu: a GEMM's {} of {} exceeds the BLAS's int range; use a "
                    "smaller batch",
                    what, v));
  }
  return static_cast<int>(v);
}

CBLAS_TRANSPOSE op_of(Op op) {
  return op == Op::Transpose ? CblasTrans : CblasNoTrans;
}

}  // namespace

void sgemm(Op op_a, Op op_b, std::size_t m, std::size_t n, std::size_t k, float alpha,
           const float* a, std::size_t lda, const float* b, std::size_t ldb, float beta, float* c,
           std::size_t ldc) {
  if (m == 0 || n == 0) return;
  cblas_sgemm(CblasRowMajor, op_of(op_a), op_of(op_b), as_int(m, "m"), as_int(n, "n"),
              as_int(k, "k"), alpha, a, as_int(lda, "lda"), b, as_int(ldb, "ldb"), beta, c,
              as_int(ldc, "ldc"));
}

SingleThreaded::SingleThreaded() : previous_(openblas_get_num_threads()) {
  if (previous_ != 1) openblas_set_num_threads(1);
}

SingleThreaded::~SingleThreaded() {
  if (previous_ != 1) openblas_set_num_threads(previous_);
}

std::string library() {
  return openblas_get_config();
}

}  // namespace gpgpu::nn::detail::blas

namespace gpgpu::nn {

std::string cpu_blas() {
  return detail::blas::library();
}

std::string cpu_blas_hint() {
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  const std::string core = openblas_get_corename();
  const bool avx2_kernels = core == "haswell" || core == "zen" || core == "Haswell" || core == "Zen";
  if (!avx512 || !avx2_kernels || std::getenv("OPENBLAS_CORETYPE") != nullptr) return "";
  return fmt::format(
      "hint: this CPU has AVX-512 but OpenBLAS picked its {} (AVX2) kernels; "
      "OPENBLAS_CORETYPE=SkylakeX in the environment may make the cpu backend up to 1.5x faster",
      core);
}

}  // namespace gpgpu::nn
