// Conv2D and Dense on the CPU backend: every pass is an sgemm on views of the activation
// and parameter arrays, with the epilogue (bias, activation, the input activation's
// derivative) a loop over the block just written.
//
//   pass             per                C            =  op(A)                op(B)
//   conv forward     image n            y_n (CO, P)      W (CO, KC)           col(x_n) (KC, P)
//   conv dW          image n, summed    dW (CO, KC)      dy_n (CO, P)         col(x_n)^T
//   conv dx          image n            dcol (KC, P)     W^T                  dy_n; dx_n = col2im
//   dense forward    rows or columns    y (B, NOUT)      x (B, NIN)           W^T
//   dense dW         rows or columns    dW (NOUT, NIN)   dy^T                 x
//   dense dx         rows or columns    dx (B, NIN)      dy (B, NOUT)         W
// (P = OH OW output positions, KC = CI k k.) Convolutions run one image per GEMM, the
// batch spread over the pool's threads with OpenBLAS single-threaded in each: an image's
// column matrix (KC x P floats, 0.6 MB for the cnn's second layer) stays in that core's
// cache between the im2col and the GEMM. The weight gradient is summed per thread and the
// per-thread sums then added in thread order, so it does not depend on timing. Dense
// GEMMs share C's rows (or columns, when it has fewer rows) among the threads.
#include <algorithm>
#include <numeric>
#include <vector>

#include "cpu/blas.hpp"
#include "cpu/cpu_ops.hpp"
#include "cpu/cpu_stage.hpp"

namespace gpgpu::nn::detail {

namespace {

using blas::Op;

// C = op(A) op(B) + beta C with C's rows, or its columns when it has fewer rows, shared
// among the pool's threads; each calls epilogue(r0, r1, c0, c1) on its block.
template <class Epilogue>
void parallel_sgemm(ThreadPool& pool, Op op_a, Op op_b, std::size_t m, std::size_t n, std::size_t k,
                    const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                    std::size_t ldc, Epilogue&& epilogue) {
  const bool by_rows = m >= n;
  pool.for_ranges(by_rows ? m : n, [&](std::size_t lo, std::size_t hi, std::size_t) {
    if (by_rows) {
      const float* a_block = op_a == Op::None ? a + lo * lda : a + lo;
      blas::sgemm(op_a, op_b, hi - lo, n, k, 1.0f, a_block, lda, b, ldb, 0.0f, c + lo * ldc, ldc);
      epilogue(lo, hi, std::size_t{0}, n);
    } else {
      const float* b_block = op_b == Op::None ? b + lo : b + lo * ldb;
      blas::sgemm(op_a, op_b, m, hi - lo, k, 1.0f, a, lda, b_block, ldb, 0.0f, c + lo, ldc);
      epilogue(std::size_t{0}, m, lo, hi);
    }
  });
}

class CpuConv final : public StageKernels {
 public:
  CpuConv(const CpuStageContext& c, const Stage& s, CpuStageArrays a)
      : c_(c), s_(s), a_(a), g_(s.conv()), identity_(cpu::im2col_is_identity(g_)) {
    const std::size_t threads = c.pool.size();
    if (!identity_) {
      cols_.assign(threads, std::vector<float>(g_.depth() * g_.out_plane()));
      padded_.assign(threads, std::vector<float>(cpu::padded_size(g_)));
    }
    if (a.dy != nullptr) {
      sums_.assign(threads, std::vector<float>(weights() + g_.co));
      used_.assign(threads, 0);
    }
  }

  void forward(std::uint32_t) override {
    const float* w = c_.params + s_.offsets[0];
    const float* bias = c_.params + s_.offsets[1];
    const std::size_t plane = g_.out_plane(), depth = g_.depth();
    c_.pool.for_ranges(c_.batch, [&](std::size_t n0, std::size_t n1, std::size_t t) {
      for (std::size_t n = n0; n < n1; ++n) {
        float* y = a_.y + n * g_.co * plane;
        blas::sgemm(Op::None, Op::None, g_.co, plane, depth, 1.0f, w, depth, columns(n, t), plane,
                    0.0f, y, plane);
        cpu::add_bias_activate(y, g_.co, plane, plane, bias, false, s_.act);
      }
    });
  }

  void backward() override {
    std::fill(used_.begin(), used_.end(), 0);
    c_.pool.for_ranges(c_.batch, [&](std::size_t n0, std::size_t n1, std::size_t t) {
      used_[t] = 1;
      std::fill(sums_[t].begin(), sums_[t].end(), 0.0f);
      for (std::size_t n = n0; n < n1; ++n) backward_image(n, t);
    });
    add_thread_sums();
  }

 private:
  std::size_t weights() const { return g_.co * g_.depth(); }

  // The column matrix of image n: the image itself for a 1x1 convolution.
  const float* columns(std::size_t n, std::size_t t) {
    const float* x = a_.x + n * g_.ci * g_.in_plane();
    if (identity_) return x;
    cpu::im2col(g_, x, cols_[t].data(), padded_[t].data());
    return cols_[t].data();
  }

  void backward_image(std::size_t n, std::size_t t) {
    const std::size_t plane = g_.out_plane(), depth = g_.depth();
    const float* dy = a_.dy + n * g_.co * plane;
    float* dw = sums_[t].data();
    float* db = dw + weights();
    blas::sgemm(Op::None, Op::Transpose, g_.co, depth, plane, 1.0f, dy, plane, columns(n, t), plane,
                1.0f, dw, depth);
    for (std::size_t co = 0; co < g_.co; ++co) {
      db[co] = std::accumulate(dy + co * plane, dy + (co + 1) * plane, db[co]);
    }
    if (a_.dx == nullptr) return;
    const std::size_t in_size = g_.ci * g_.in_plane();
    float* dx = a_.dx + n * in_size;
    // The column matrix's buffer is free again: it takes d(columns) = W^T dy.
    float* dcol = identity_ ? dx : cols_[t].data();
    blas::sgemm(Op::Transpose, Op::None, depth, plane, g_.co, 1.0f, c_.params + s_.offsets[0],
                depth, dy, plane, 0.0f, dcol, plane);
    if (!identity_) cpu::col2im(g_, dcol, dx, padded_[t].data());
    cpu::scale_by_derivative(dx, a_.x + n * in_size, in_size, s_.input_act);
  }

  // gradients = the per-thread sums added in thread order.
  void add_thread_sums() {
    float* dw = c_.gradients + s_.offsets[0];
    float* db = c_.gradients + s_.offsets[1];
    c_.pool.for_ranges(weights() + g_.co, [&](std::size_t i0, std::size_t i1, std::size_t) {
      for (std::size_t i = i0; i < i1; ++i) {
        float sum = 0.0f;
        for (std::size_t t = 0; t < sums_.size(); ++t) {
          if (used_[t]) sum += sums_[t][i];
        }
        (i < weights() ? dw[i] : db[i - weights()]) = sum;
      }
    });
  }

  CpuStageContext c_;
  const Stage& s_;
  CpuStageArrays a_;
  ConvGeometry g_;
  bool identity_;
  std::vector<std::vector<float>> cols_, padded_, sums_;
  std::vector<char> used_;
};

class CpuDense final : public StageKernels {
 public:
  CpuDense(const CpuStageContext& c, const Stage& s, CpuStageArrays a)
      : c_(c), s_(s), a_(a), nin_(s.in[0]), nout_(s.out[0]) {}

  void forward(std::uint32_t) override {
    const float* bias = c_.params + s_.offsets[1];
    parallel_sgemm(c_.pool, Op::None, Op::Transpose, c_.batch, nout_, nin_, a_.x, nin_,
                   c_.params + s_.offsets[0], nin_, a_.y, nout_,
                   [&](std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
                     cpu::add_bias_activate(a_.y + r0 * nout_ + c0, r1 - r0, c1 - c0, nout_,
                                            bias + c0, true, s_.act);
                   });
  }

  void backward() override {
    const auto none = [](std::size_t, std::size_t, std::size_t, std::size_t) {};
    parallel_sgemm(c_.pool, Op::Transpose, Op::None, nout_, nin_, c_.batch, a_.dy, nout_, a_.x,
                   nin_, c_.gradients + s_.offsets[0], nin_, none);
    float* db = c_.gradients + s_.offsets[1];
    std::fill(db, db + nout_, 0.0f);
    for (std::size_t n = 0; n < c_.batch; ++n) {
      const float* row = a_.dy + n * nout_;
      for (std::size_t o = 0; o < nout_; ++o) db[o] += row[o];
    }
    if (a_.dx == nullptr) return;
    parallel_sgemm(c_.pool, Op::None, Op::None, c_.batch, nin_, nout_, a_.dy, nout_,
                   c_.params + s_.offsets[0], nin_, a_.dx, nin_,
                   [&](std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
                     for (std::size_t r = r0; r < r1; ++r) {
                       cpu::scale_by_derivative(a_.dx + r * nin_ + c0, a_.x + r * nin_ + c0,
                                                c1 - c0, s_.input_act);
                     }
                   });
  }

 private:
  CpuStageContext c_;
  const Stage& s_;
  CpuStageArrays a_;
  std::size_t nin_, nout_;
};

}  // namespace

std::unique_ptr<StageKernels> make_cpu_linear(const CpuStageContext& c, const Stage& s,
                                              CpuStageArrays a) {
  if (s.kind == Stage::Kind::Conv) return std::make_unique<CpuConv>(c, s, a);
  return std::make_unique<CpuDense>(c, s, a);
}

}  // namespace gpgpu::nn::detail
