// The compute backend's stages besides Dense and Conv2D: the element-wise ones (pooling,
// activations, dropout, softmax: glsl/element_stage.hpp) and batch normalisation, whose
// statistics are work-group reductions (kernels.hpp).
#include <optional>

#include <fmt/format.h>

#include "glsl/ops.hpp"
#include "gpgpu/error.hpp"
#include "kernels.hpp"
#include "runners.hpp"

namespace gpgpu::nn::detail {

std::unique_ptr<StageKernels> make_gemm_runner(const ComputeStageContext& sc, const Stage& stage,
                                               StageBuffers buffers);

namespace {

class BatchNormRunner final : public StageKernels {
 public:
  BatchNormRunner(const ComputeStageContext& sc, const Stage& stage, StageBuffers b)
      : sc_(sc),
        path_(sc.context),
        b_(b),
        when_(glsl::Conditions::of(stage, sc.mode)),
        channels_(stage.channels()) {
    const Defines d = stage_defines(stage, sc.batch, sc.mode);
    const auto label = fmt::format("nn batchnorm (layer {})", stage.layer);
    const std::string reduce =
        std::string(kernels::channel_reduce_prelude) + glsl::batchnorm_running;
    normalize_.emplace(path_.kernel(glsl::batchnorm_normalize, d, label));
    if (when_.train) {
      stats_.emplace(
          make_nn_kernel(sc.context, reduce + kernels::batchnorm_stats, d, label + " statistics"));
      stats_buffer_ = path_.array(2 * channels_);
    }
    if (b.dy != nullptr) {
      sums_.emplace(make_nn_kernel(sc.context, reduce + kernels::batchnorm_backward_sums, d,
                                   label + " gradient sums"));
      sums_buffer_ = path_.array(2 * channels_);
    }
    if (b.dx != nullptr) {
      input_.emplace(path_.kernel(glsl::batchnorm_input_gradient, d, label + " input gradient"));
    }
  }

  void forward(std::uint32_t) override {
    if (when_.train) {
      stats_->run_groups({{"x", *b_.x}, {"p", sc_.params}, {"stats", stats_buffer_}},
                         Size3{channels_, 1, 1});
    }
    normalize_->run(
        bind_operands(path_, glsl::batchnorm_normalize, when_,
                      {{"x", b_.x}, {"y", b_.y}, {"stats", &stats_buffer_}}, {{"p", sc_.params}}),
        b_.y->size());
  }

  void backward() override {
    sums_->run_groups({{"x", *b_.x},
                       {"dy", *b_.dy},
                       {"stats", stats_buffer_},
                       {"g", sc_.gradients},
                       {"sums", sums_buffer_}},
                      Size3{channels_, 1, 1});
    if (input_) {
      input_->run(bind_operands(path_, glsl::batchnorm_input_gradient, when_,
                                {{"x", b_.x},
                                 {"dy", b_.dy},
                                 {"dx", b_.dx},
                                 {"stats", &stats_buffer_},
                                 {"sums", &sums_buffer_}},
                                {{"p", sc_.params}}),
                  b_.dx->size());
    }
  }

 private:
  ComputeStageContext sc_;
  ComputePath path_;
  StageBuffers b_;
  glsl::Conditions when_;
  std::size_t channels_;
  std::optional<ComputeKernel> stats_, normalize_, sums_, input_;
  Buffer stats_buffer_, sums_buffer_;
};

}  // namespace

std::unique_ptr<StageKernels> make_compute_runner(const ComputeStageContext& sc, const Stage& stage,
                                                  StageBuffers buffers) {
  switch (stage.kind) {
    case Stage::Kind::Dense:
    case Stage::Kind::Conv:
      return make_gemm_runner(sc, stage, buffers);
    case Stage::Kind::BatchNorm:
      return std::make_unique<BatchNormRunner>(sc, stage, buffers);
    case Stage::Kind::Alias:
      return nullptr;
    default:
      return std::make_unique<ElementStage<ComputePath>>(ComputePath(sc.context), stage, sc.batch,
                                                         sc.mode, buffers);
  }
}

}  // namespace gpgpu::nn::detail
