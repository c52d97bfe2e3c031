// A Conv2D with the pooling after it fused in, on the compute backend (pool_fusion.hpp):
// which pairs fuse, and the runner of a fused pair.
#include "pool_fusion.hpp"

#include <optional>

#include <fmt/format.h>

#include "gemm.hpp"
#include "glsl/ops.hpp"
#include "glsl/stage_defines.hpp"
#include "linear_gemms.hpp"

namespace gpgpu::nn::detail {

namespace {

using Fusion = BackendOptions::Fusion;

// Positions per window when `g`'s windows can be whole in a GEMM invocation's run of 4 rows
// and never overlap (an input in one window at most: backward needs no sums over windows);
// 0 when they cannot.
int fusable_window(const PoolGeometry& g) {
  const std::size_t positions = g.size_y * g.size_x;
  if (positions != 1 && positions != 4) return 0;
  if (g.stride < g.size_y || g.stride < g.size_x) return 0;
  return static_cast<int>(positions);
}

// A training pair binds up to 6 storage buffers in one kernel (the input-gradient GEMM
// reading through the pooling: dyp, p, arg, yp, dx, xin) at bindings up to 7 (the split-K
// partial sums); in evaluation, the plain convolution's 4 (x, p, y, bias) at its bindings.
bool device_binds(const DeviceInfo& info, bool train) {
  if (!train) return true;
  return info.max_compute_shader_storage_blocks >= 6 &&
         info.max_combined_shader_storage_blocks >= 6 &&
         info.max_shader_storage_buffer_bindings >= 8;
}

// Auto: the gradient in the GEMMs' loads where only a weight-gradient GEMM with at most 2 row
// tiles of 64 reads it (each value is then computed about once); a kernel where an input
// gradient GEMM reads it too (every value k k times, with col2im's addressing).
bool gradient_kernel(Fusion fusion, const Stage& conv, bool input_gradient) {
  if (fusion == Fusion::GradientKernel) return true;
  if (fusion == Fusion::GradientInLoads) return false;
  return input_gradient || conv.conv().depth() + 1 > 128;
}

}  // namespace

std::vector<PoolFusion> pool_fusions(const StagePlan& plan, const DeviceInfo& info,
                                     const BackendOptions& options) {
  std::vector<PoolFusion> fusions;
  if (options.fuse_pooling == Fusion::Off || !device_binds(info, plan.train())) return fusions;
  const auto& stages = plan.stages;
  for (std::size_t i = 0; i + 1 < stages.size(); ++i) {
    const Stage &conv = stages[i], &pool = stages[i + 1];
    const bool pooling = pool.kind == Stage::Kind::MaxPool || pool.kind == Stage::Kind::AvgPool;
    if (conv.kind != Stage::Kind::Conv || !pooling || pool.input_stage != i) continue;
    const int window = fusable_window(pool.pool());
    if (window == 0) continue;
    PoolFusion f;
    f.conv = i;
    f.pool = i + 1;
    f.window = window;
    f.train = plan.train();
    f.gradient_kernel =
        f.train && gradient_kernel(options.fuse_pooling, conv, plan.has_gradient(conv.input_slot));
    f.pre_pool = f.train && pool.kind == Stage::Kind::AvgPool && !conv.act.none();
    fusions.push_back(f);
  }
  return fusions;
}

namespace {

// dL/d(convolution output) from the pooled gradient, one invocation per output element.
const std::string gradient_kernel_source = std::string(R"(
layout(local_size_x = gpgpu_group_size) in;
layout(std430, binding = 0) readonly buffer PooledGradient { float dyp[]; };
#ifdef MAX_POOL
layout(std430, binding = 1) readonly buffer PoolIndices { float arg[]; };
layout(std430, binding = 2) readonly buffer PooledOutput { float yp[]; };
#elif ACT != 0
layout(std430, binding = 2) readonly buffer PrePool { float ypre[]; };
#endif
layout(std430, binding = 3) writeonly buffer OutputGradient { float dy[]; };
)") + glsl::pooling_area + glsl::pooled_gradient +
                                           R"(
void main() {
  uint i = gpgpu_index();
  if (i < gpgpu_count) dy[i] = pooled_gradient(int(i));
}
)";

class ConvPoolRunner final : public StageKernels {
 public:
  ConvPoolRunner(const ComputeStageContext& sc, const Stage& conv, const Stage& pool,
                 const PoolFusion& fusion, PoolFusionBuffers b)
      : sc_(sc), conv_(conv), fusion_(fusion), b_(b), max_(pool.kind == Stage::Kind::MaxPool) {
    const Mode mode = fusion.train ? Mode::Train : Mode::Eval;
    const Defines d = stage_defines(conv, sc.batch, mode);
    auto gemms = conv_gemms(conv, sc.batch, d, &fusion, &pool);
    const std::string label =
        fmt::format("nn conv2d + {} (layers {}-{})", layer_type(pool.spec), conv.layer, pool.layer);
    auto make = [&](std::optional<Gemm>& gemm, LinearGemm& g, const char* what) {
      gemm.emplace(sc.context, g.shape, std::move(g.source), sc.options, label + what);
    };
    make(forward_, gemms[0], " forward");
    if (!fusion.train) return;
    if (max_) arg_ = Buffer(sc.context, ElementType::Float32, b.stage.y->size());
    if (fusion.gradient_kernel) {
      Defines gd = d;
      for (auto& define : pool_defines(pool, mode)) gd.push_back(std::move(define));
      gradient_.emplace(make_nn_kernel(sc.context, gradient_kernel_source, gd,
                                       label + " convolution output gradient"));
    }
    make(weights_, gemms[1], " weight gradient");
    if (b.stage.dx != nullptr) make(input_, gemms[2], " input gradient");
  }

  void forward(std::uint32_t) override {
    Args result{{"y", *b_.stage.y}, {"bias", sc_.params}};
    if (arg_.valid()) result.emplace_back("arg", arg_);
    if (fusion_.pre_pool) result.emplace_back("ypre", *b_.pre_pool);
    forward_->run({{"x", *b_.stage.x}, {"p", sc_.params}}, result);
  }

  void backward() override {
    const Args pooled = pooling_arrays();
    Args weights{{"x", *b_.stage.x}}, input{{"p", sc_.params}};
    if (fusion_.gradient_kernel) {
      Args args{{"dyp", *b_.stage.dy}, {"dy", *b_.conv_gradient}};
      args.insert(args.end(), pooled.begin(), pooled.end());
      gradient_->run(args, b_.conv_gradient->size());
      weights.emplace_back("dy", *b_.conv_gradient);
      input.emplace_back("dy", *b_.conv_gradient);
    } else {
      weights.emplace_back("dyp", *b_.stage.dy);
      input.emplace_back("dyp", *b_.stage.dy);
      weights.insert(weights.end(), pooled.begin(), pooled.end());
      input.insert(input.end(), pooled.begin(), pooled.end());
    }
    weights_->run(weights, {{"g", sc_.gradients}});
    if (!input_) return;
    Args result{{"dx", *b_.stage.dx}};
    if (!conv_.input_act.none()) result.emplace_back("xin", *b_.stage.x);
    input_->run(input, result);
  }

 private:
  // What glsl::pooled_gradient reads beside the pooled gradient.
  Args pooling_arrays() const {
    if (max_) return {{"arg", arg_}, {"yp", *b_.stage.y}};
    if (fusion_.pre_pool) return {{"ypre", *b_.pre_pool}};
    return {};
  }

  ComputeStageContext sc_;
  const Stage& conv_;
  PoolFusion fusion_;
  PoolFusionBuffers b_;
  bool max_;
  Buffer arg_;  // max pooling in training: each window's largest position, as a float
  std::optional<Gemm> forward_, weights_, input_;
  std::optional<ComputeKernel> gradient_;
};

}  // namespace

std::unique_ptr<StageKernels> make_conv_pool_runner(const ComputeStageContext& sc,
                                                    const Stage& conv, const Stage& pool,
                                                    const PoolFusion& fusion,
                                                    PoolFusionBuffers buffers) {
  return std::make_unique<ConvPoolRunner>(sc, conv, pool, fusion, buffers);
}

}  // namespace gpgpu::nn::detail
