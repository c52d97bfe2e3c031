// The CPU backend's stages besides Conv2D and Dense (cpu_linear.cpp): pooling, standalone
// activations, dropout, softmax and batch normalisation, each spread over the pool by
// planes, rows, elements or channels.
#include <cmath>
#include <vector>

#include "cpu/cpu_ops.hpp"
#include "cpu/cpu_stage.hpp"
#include "plan/hash.hpp"

namespace gpgpu::nn::detail {

std::unique_ptr<StageKernels> make_cpu_linear(const CpuStageContext& c, const Stage& s,
                                              CpuStageArrays a);

namespace {

class CpuPool final : public StageKernels {
 public:
  CpuPool(const CpuStageContext& c, const Stage& s, CpuStageArrays a)
      : c_(c), s_(s), a_(a), g_(s.pool()), planes_(c.batch * g_.channels) {
    if (g_.max && a.dy != nullptr) argmax_.resize(planes_ * g_.oh * g_.ow);
  }
  void forward(std::uint32_t) override {
    const std::size_t in = g_.ih * g_.iw, out = g_.oh * g_.ow;
    std::int32_t* arg = argmax_.empty() ? nullptr : argmax_.data();
    c_.pool.for_ranges(planes_, [&](std::size_t p0, std::size_t p1, std::size_t) {
      cpu::pool_forward(g_, p1 - p0, a_.x + p0 * in, a_.y + p0 * out,
                        arg ? arg + p0 * out : nullptr);
    });
  }
  void backward() override {
    if (a_.dx == nullptr) return;
    const std::size_t in = g_.ih * g_.iw, out = g_.oh * g_.ow;
    c_.pool.for_ranges(planes_, [&](std::size_t p0, std::size_t p1, std::size_t) {
      const std::int32_t* arg = argmax_.empty() ? nullptr : argmax_.data() + p0 * out;
      cpu::pool_backward(g_, p1 - p0, a_.dy + p0 * out, arg, a_.dx + p0 * in);
      cpu::scale_by_derivative(a_.dx + p0 * in, a_.x + p0 * in, (p1 - p0) * in, s_.input_act);
    });
  }

 private:
  CpuStageContext c_;
  const Stage& s_;
  CpuStageArrays a_;
  PoolGeometry g_;
  std::size_t planes_;
  std::vector<std::int32_t> argmax_;
};

// ReLU, Sigmoid or Tanh on its own, and Dropout: element-wise, spread over element ranges.
class CpuElementwise final : public StageKernels {
 public:
  CpuElementwise(const CpuStageContext& c, const Stage& s, CpuStageArrays a)
      : c_(c), s_(s), a_(a), n_(c.batch * s.out.size()) {
    if (s.kind == Stage::Kind::Dropout) {
      rate_ = s.dropout_rate();
      scale_ = static_cast<float>(1.0 / (1.0 - static_cast<double>(rate_)));
    }
  }
  void forward(std::uint32_t seed) override {
    const bool dropout = s_.kind == Stage::Kind::Dropout;
    if (dropout) mask_ = s_.mask_seed(seed);
    c_.pool.for_ranges(n_, [&](std::size_t i0, std::size_t i1, std::size_t) {
      if (!dropout) return cpu::activate(a_.x + i0, a_.y + i0, i1 - i0, s_.act);
      for (std::size_t i = i0; i < i1; ++i) a_.y[i] = kept(i) ? a_.x[i] * scale_ : 0.0f;
    });
  }
  void backward() override {
    if (a_.dx == nullptr) return;
    const bool dropout = s_.kind == Stage::Kind::Dropout;
    c_.pool.for_ranges(n_, [&](std::size_t i0, std::size_t i1, std::size_t) {
      if (!dropout)
        return cpu::derivative_times(a_.dy + i0, a_.x + i0, a_.dx + i0, i1 - i0, s_.input_act);
      for (std::size_t i = i0; i < i1; ++i) a_.dx[i] = kept(i) ? a_.dy[i] * scale_ : 0.0f;
      cpu::scale_by_derivative(a_.dx + i0, a_.x + i0, i1 - i0, s_.input_act);
    });
  }

 private:
  bool kept(std::size_t i) const {
    return dropout_keeps(static_cast<std::uint32_t>(i), mask_, rate_);
  }

  CpuStageContext c_;
  const Stage& s_;
  CpuStageArrays a_;
  std::size_t n_;
  float rate_ = 0, scale_ = 1;
  std::uint32_t mask_ = 0;
};

class CpuSoftmax final : public StageKernels {
 public:
  CpuSoftmax(const CpuStageContext& c, const Stage& s, CpuStageArrays a)
      : c_(c), s_(s), a_(a), f_(s.out[0]) {}
  void forward(std::uint32_t) override {
    c_.pool.for_ranges(c_.batch, [&](std::size_t r0, std::size_t r1, std::size_t) {
      cpu::softmax_rows(a_.x + r0 * f_, a_.y + r0 * f_, r1 - r0, f_);
    });
  }
  void backward() override {
    if (a_.dx == nullptr) return;
    c_.pool.for_ranges(c_.batch, [&](std::size_t r0, std::size_t r1, std::size_t) {
      cpu::softmax_backward_rows(a_.y + r0 * f_, a_.dy + r0 * f_, a_.dx + r0 * f_, r1 - r0, f_);
      cpu::scale_by_derivative(a_.dx + r0 * f_, a_.x + r0 * f_, (r1 - r0) * f_, s_.input_act);
    });
  }

 private:
  CpuStageContext c_;
  const Stage& s_;
  CpuStageArrays a_;
  std::size_t f_;
};

// Batch normalisation per channel (features for (F) inputs): the statistics in float64
// (two passes), as PyTorch keeps them: normalised with the batch's biased variance, the
// running variance updated with the unbiased one.
class CpuBatchNorm final : public StageKernels {
 public:
  CpuBatchNorm(const CpuStageContext& c, const Stage& s, CpuStageArrays a)
      : c_(c),
        s_(s),
        a_(a),
        bn_(std::get<BatchNorm>(s.spec)),
        channels_(s.channels()),
        size_(s.channel_size()),
        count_(c.batch * size_),
        mean_(channels_),
        inv_std_(channels_) {}

  void forward(std::uint32_t) override {
    c_.pool.for_ranges(channels_, [&](std::size_t c0, std::size_t c1, std::size_t) {
      for (std::size_t c = c0; c < c1; ++c) {
        if (c_.mode == Mode::Train) {
          batch_statistics(c);
        } else {
          mean_[c] = c_.params[s_.offsets[2] + c];
          inv_std_[c] = 1.0f / std::sqrt(c_.params[s_.offsets[3] + c] + bn_.epsilon);
        }
        normalize(c);
      }
    });
  }

  void backward() override {
    c_.pool.for_ranges(channels_, [&](std::size_t c0, std::size_t c1, std::size_t) {
      for (std::size_t c = c0; c < c1; ++c) backward_channel(c);
    });
  }

 private:
  // Calls f(index) for every value of channel c.
  template <class F>
  void for_channel(std::size_t c, F&& f) const {
    for (std::size_t n = 0; n < c_.batch; ++n) {
      const std::size_t base = (n * channels_ + c) * size_;
      for (std::size_t j = 0; j < size_; ++j) f(base + j);
    }
  }

  void batch_statistics(std::size_t c) {
    double sum = 0, squares = 0;
    for_channel(c, [&](std::size_t i) { sum += a_.x[i]; });
    const double mean = sum / static_cast<double>(count_);
    for_channel(c, [&](std::size_t i) { squares += (a_.x[i] - mean) * (a_.x[i] - mean); });
    const double variance = squares / static_cast<double>(count_);
    mean_[c] = static_cast<float>(mean);
    inv_std_[c] = static_cast<float>(1.0 / std::sqrt(variance + bn_.epsilon));
    const double m = bn_.momentum;
    const double unbiased = variance * static_cast<double>(count_) /
                            static_cast<double>(std::max<std::size_t>(count_ - 1, 1));
    float& running_mean = c_.params[s_.offsets[2] + c];
    float& running_var = c_.params[s_.offsets[3] + c];
    running_mean = static_cast<float>((1 - m) * running_mean + m * mean);
    running_var = static_cast<float>((1 - m) * running_var + m * unbiased);
  }

  void normalize(std::size_t c) {
    const float mean = mean_[c], inv_std = inv_std_[c];
    const float gamma = c_.params[s_.offsets[0] + c], beta = c_.params[s_.offsets[1] + c];
    for (std::size_t n = 0; n < c_.batch; ++n) {
      const std::size_t base = (n * channels_ + c) * size_;
      for (std::size_t j = 0; j < size_; ++j) {
        a_.y[base + j] = (a_.x[base + j] - mean) * inv_std * gamma + beta;
      }
      cpu::activate(a_.y + base, a_.y + base, size_, s_.act);
    }
  }

  // dgamma = sum dy xhat, dbeta = sum dy; dx = gamma inv_std / N (N dy - dbeta - xhat dgamma).
  void backward_channel(std::size_t c) {
    const float mean = mean_[c], inv_std = inv_std_[c];
    double sum_dy = 0, sum_dy_xhat = 0;
    for_channel(c, [&](std::size_t i) {
      sum_dy += a_.dy[i];
      sum_dy_xhat += static_cast<double>(a_.dy[i]) * ((a_.x[i] - mean) * inv_std);
    });
    c_.gradients[s_.offsets[0] + c] = static_cast<float>(sum_dy_xhat);
    c_.gradients[s_.offsets[1] + c] = static_cast<float>(sum_dy);
    if (a_.dx == nullptr) return;
    const auto n = static_cast<float>(count_);
    const float factor = c_.params[s_.offsets[0] + c] * inv_std / n;
    const auto b = static_cast<float>(sum_dy), g = static_cast<float>(sum_dy_xhat);
    for (std::size_t s = 0; s < c_.batch; ++s) {
      const std::size_t base = (s * channels_ + c) * size_;
      for (std::size_t j = 0; j < size_; ++j) {
        const float xhat = (a_.x[base + j] - mean) * inv_std;
        a_.dx[base + j] = factor * (n * a_.dy[base + j] - b - xhat * g);
      }
      cpu::scale_by_derivative(a_.dx + base, a_.x + base, size_, s_.input_act);
    }
  }

  CpuStageContext c_;
  const Stage& s_;
  CpuStageArrays a_;
  BatchNorm bn_;
  std::size_t channels_, size_, count_;
  std::vector<float> mean_, inv_std_;
};

}  // namespace

std::unique_ptr<StageKernels> make_cpu_kernels(const CpuStageContext& c, const Stage& s,
                                               CpuStageArrays a) {
  switch (s.kind) {
    case Stage::Kind::Dense:
    case Stage::Kind::Conv:
      return make_cpu_linear(c, s, a);
    case Stage::Kind::MaxPool:
    case Stage::Kind::AvgPool:
      return std::make_unique<CpuPool>(c, s, a);
    case Stage::Kind::Activation:
    case Stage::Kind::Dropout:
      return std::make_unique<CpuElementwise>(c, s, a);
    case Stage::Kind::Softmax:
      return std::make_unique<CpuSoftmax>(c, s, a);
    case Stage::Kind::BatchNorm:
      return std::make_unique<CpuBatchNorm>(c, s, a);
    case Stage::Kind::Alias:
      return nullptr;
  }
  return nullptr;
}

}  // namespace gpgpu::nn::detail
