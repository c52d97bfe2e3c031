// The compute backend's stages besides Dense and Conv2D: the element-wise ones (pooling,
// activations, dropout, softmax: glsl/element_stage.hpp) and batch normalisation, whose
// statistics are work-group reductions (kernels.hpp).
#include <algorithm>
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

// The input gradient reads six storage buffers (x, dy, p, stats, sums, dx); where the device
// binds fewer, the statistics kernel copies gamma and the sums kernel its sums into one
// channel table (BN_TABLE, glsl/ops.hpp), and every kernel binds at most four.
bool channel_table(const DeviceInfo& info) {
  return std::min({info.max_compute_shader_storage_blocks, info.max_combined_shader_storage_blocks,
                   info.max_shader_storage_buffer_bindings}) < 6;
}

Defines batchnorm_defines(const Stage& stage, std::size_t batch, Mode mode, bool table) {
  Defines d = stage_defines(stage, batch, mode);
  if (table) d.emplace_back("BN_TABLE", "");
  return d;
}

// A BatchNorm stage's kernels: normalisation; in training the statistics, and in the
// backward pass the gradient sums and the input gradient.
struct BatchNormSources {
  KernelSource normalize;
  std::optional<KernelSource> stats, sums, input;
};

BatchNormSources batchnorm_sources(const DeviceInfo& info, const Stage& stage, std::size_t batch,
                                   Mode mode, StageKernelNeeds needs) {
  const bool table = channel_table(info);
  const Defines d = batchnorm_defines(stage, batch, mode, table);
  const std::string label = fmt::format("nn batchnorm (layer {})", stage.layer);
  const std::string reduce = std::string(kernels::channel_reduce_prelude) + glsl::batchnorm_running;
  BatchNormSources k{ComputePath::source(glsl::batchnorm_normalize, d, label), {}, {}, {}};
  if (mode == Mode::Train) {
    k.stats = nn_kernel_source(reduce + kernels::batchnorm_stats, d, label + " statistics");
  }
  if (needs.gradients) {
    k.sums =
        nn_kernel_source(reduce + kernels::batchnorm_backward_sums, d, label + " gradient sums");
  }
  if (needs.input_gradient) {
    k.input = ComputePath::source(
        table ? glsl::batchnorm_input_gradient_table : glsl::batchnorm_input_gradient, d,
        label + " input gradient");
  }
  return k;
}

class BatchNormRunner final : public StageKernels {
 public:
  BatchNormRunner(const ComputeStageContext& sc, const Stage& stage, StageBuffers b)
      : sc_(sc),
        path_(sc.context),
        b_(b),
        when_(glsl::Conditions::of(stage, sc.mode)),
        channels_(stage.channels()),
        table_(channel_table(sc.context.info())) {
    const auto k = batchnorm_sources(sc.context.info(), stage, sc.batch, sc.mode,
                                     {b.dy != nullptr, b.dx != nullptr});
    normalize_.emplace(compile(sc.context, k.normalize));
    if (k.stats) {
      stats_.emplace(compile(sc.context, *k.stats));
      stats_buffer_ = path_.array((table_ ? 5 : 2) * channels_);
    }
    if (k.sums) {
      sums_.emplace(compile(sc.context, *k.sums));
      if (!table_) sums_buffer_ = path_.array(2 * channels_);
    }
    if (k.input) input_.emplace(compile(sc.context, *k.input));
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
    Args sums{{"x", *b_.x}, {"dy", *b_.dy}, {"stats", stats_buffer_}, {"g", sc_.gradients}};
    if (!table_) sums.emplace_back("sums", sums_buffer_);
    sums_->run_groups(sums, Size3{channels_, 1, 1});
    if (input_) {
      Args params;
      if (!table_) params.emplace_back("p", sc_.params);
      input_->run(bind_operands(path_, input_gradient(), when_,
                                {{"x", b_.x},
                                 {"dy", b_.dy},
                                 {"dx", b_.dx},
                                 {"stats", &stats_buffer_},
                                 {"sums", &sums_buffer_}},
                                params),
                  b_.dx->size());
    }
  }

 private:
  const glsl::ElementKernel& input_gradient() const {
    return table_ ? glsl::batchnorm_input_gradient_table : glsl::batchnorm_input_gradient;
  }

  ComputeStageContext sc_;
  ComputePath path_;
  StageBuffers b_;
  glsl::Conditions when_;
  std::size_t channels_;
  bool table_;  // channel_table
  std::optional<ComputeKernel> stats_, normalize_, sums_, input_;
  Buffer stats_buffer_, sums_buffer_;
};

}  // namespace

std::vector<KernelSource> compute_stage_sources(const DeviceInfo& info, const Stage& stage,
                                                std::size_t batch, Mode mode,
                                                const BackendOptions& options,
                                                StageKernelNeeds needs) {
  switch (stage.kind) {
    case Stage::Kind::Dense:
    case Stage::Kind::Conv:
      return gemm_stage_sources(info, stage, batch, mode, options, needs);
    case Stage::Kind::BatchNorm: {
      const auto k = batchnorm_sources(info, stage, batch, mode, needs);
      std::vector<KernelSource> sources{k.normalize};
      for (const auto& o : {k.stats, k.sums, k.input}) {
        if (o) sources.push_back(*o);
      }
      return sources;
    }
    case Stage::Kind::Alias:
      return {};
    default: {
      // ElementStage's kernels.
      const Defines d = stage_defines(stage, batch, mode);
      const auto label = fmt::format("nn {} (layer {})", layer_type(stage.spec), stage.layer);
      std::vector<KernelSource> sources{
          ComputePath::source(glsl::forward_kernel(stage.kind), d, label)};
      if (needs.input_gradient) {
        sources.push_back(
            ComputePath::source(glsl::backward_kernel(stage.kind), d, label + " backward"));
      }
      return sources;
    }
  }
}

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
