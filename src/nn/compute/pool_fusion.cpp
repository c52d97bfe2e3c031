// A Conv2D with the pooling after it fused in, on the compute backend (pool_fusion.hpp):
// which pairs fuse, and the runner of a fused pair.
#include "pool_fusion.hpp"

#include <cstdlib>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "gemm.hpp"
#include "glsl/ops.hpp"
#include "glsl/stage_defines.hpp"
#include "gpgpu/error.hpp"
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

// A training pair binds up to 6 storage buffers in one kernel, at bindings 0-5 (the forward
// GEMM: x, p, y, bias, arg or ypre; the input-gradient GEMM reading through the pooling: dyp,
// p, arg, yp, dx, xin); in evaluation, the plain convolution's 4 (x, p, y, bias), which
// OpenGL ES 3.1 guarantees. Where fewer than 6 bind, training runs the pair unfused.
bool device_binds(const DeviceInfo& info, bool train) {
  if (!train) return true;
  return info.max_compute_shader_storage_blocks >= 6 &&
         info.max_combined_shader_storage_blocks >= 6 &&
         info.max_shader_storage_buffer_bindings >= 6;
}

// Auto: the gradient in the GEMMs' loads where only a weight-gradient GEMM with at most 2 row
// tiles of 64 reads it (each value is then computed about once); a kernel where an input
// gradient GEMM reads it too (every value k k times, with col2im's addressing).
bool gradient_kernel(Fusion fusion, const Stage& conv, bool input_gradient) {
  if (fusion == Fusion::GradientKernel) return true;
  if (fusion == Fusion::GradientInLoads) return false;
  return input_gradient || conv.conv().depth() + 1 > 128;
}

// GPGPU_NN_FUSE (off, auto, kernel, loads) overrides `asked` for every model of the process:
// a switch for same-run comparisons and for ruling the fusion out, without a rebuild.
Fusion fusion_setting(Fusion asked) {
  const char* env = std::getenv("GPGPU_NN_FUSE");
  if (env == nullptr || *env == '\0') return asked;
  const std::string v = env;
  if (v == "off") return Fusion::Off;
  if (v == "auto") return Fusion::Auto;
  if (v == "kernel") return Fusion::GradientKernel;
  if (v == "loads") return Fusion::GradientInLoads;
  throw ArgumentError("GPGPU_NN_FUSE=" + v + ": expected off, auto, kernel or loads");
}

}  // namespace

std::vector<PoolFusion> pool_fusions(const StagePlan& plan, const DeviceInfo& info,
                                     const BackendOptions& options) {
  std::vector<PoolFusion> fusions;
  const Fusion setting = fusion_setting(options.fuse_pooling);
  if (setting == Fusion::Off || !device_binds(info, plan.train())) return fusions;
  // Auto fuses on GPUs only: on a software rasterizer (llvmpipe) the arithmetic is the cost,
  // not the memory traffic or the launches the fusion saves, and the fused loads' window
  // addressing made the small net's inference 1.4x slower there (docs/nn.md, Measured).
  if (setting == Fusion::Auto && info.is_software) return fusions;
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
        f.train && gradient_kernel(setting, conv, plan.has_gradient(conv.input_slot));
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

std::string pair_label(const Stage& conv, const Stage& pool) {
  return fmt::format("nn conv2d + {} (layers {}-{})", layer_type(pool.spec), conv.layer,
                     pool.layer);
}

Mode mode_of(const PoolFusion& fusion) {
  return fusion.train ? Mode::Train : Mode::Eval;
}

KernelSource gradient_source(const Stage& conv, const Stage& pool, const PoolFusion& fusion,
                             std::size_t batch) {
  Defines d = stage_defines(conv, batch, mode_of(fusion));
  for (auto& define : pool_defines(pool, mode_of(fusion))) d.push_back(std::move(define));
  return nn_kernel_source(gradient_kernel_source, std::move(d),
                          pair_label(conv, pool) + " convolution output gradient");
}

constexpr const char* pair_roles[] = {" forward", " weight gradient", " input gradient"};

class ConvPoolRunner final : public StageKernels {
 public:
  ConvPoolRunner(const ComputeStageContext& sc, const Stage& conv, const Stage& pool,
                 const PoolFusion& fusion, PoolFusionBuffers b)
      : sc_(sc), conv_(conv), fusion_(fusion), b_(b), max_(pool.kind == Stage::Kind::MaxPool) {
    const Defines d = stage_defines(conv, sc.batch, mode_of(fusion));
    auto gemms = conv_gemms(conv, sc.batch, d, &fusion, &pool);
    const std::string label = pair_label(conv, pool);
    auto make = [&](std::optional<Gemm>& gemm, LinearGemm& g, const char* what) {
      gemm.emplace(sc.context, g.shape, std::move(g.source), sc.options, label + what);
    };
    make(forward_, gemms[0], pair_roles[0]);
    if (!fusion.train) return;
    if (max_) arg_ = Buffer(sc.context, ElementType::Float32, b.stage.y->size());
    if (fusion.gradient_kernel) {
      gradient_.emplace(compile(sc.context, gradient_source(conv, pool, fusion, sc.batch)));
    }
    make(weights_, gemms[1], pair_roles[1]);
    if (b.stage.dx != nullptr) make(input_, gemms[2], pair_roles[2]);
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

std::vector<KernelSource> conv_pool_sources(const DeviceInfo& info, const Stage& conv,
                                            const Stage& pool, const PoolFusion& fusion,
                                            std::size_t batch, const BackendOptions& options,
                                            bool input_gradient) {
  const auto gemms =
      conv_gemms(conv, batch, stage_defines(conv, batch, mode_of(fusion)), &fusion, &pool);
  const bool roles[] = {true, fusion.train, fusion.train && input_gradient};
  const bool shared = shared_tiles(info, options);
  std::vector<KernelSource> sources;
  if (fusion.gradient_kernel) sources.push_back(gradient_source(conv, pool, fusion, batch));
  for (int role = 0; role < 3; ++role) {
    if (!roles[role]) continue;
    const LinearGemm& g = gemms[role];
    for (const auto& t : candidate_tilings(info, g.shape, shared, g.source.computed_loads)) {
      for (auto& k : gemm_kernel_sources(info, g.shape, g.source, t,
                                         pair_label(conv, pool) + pair_roles[role])) {
        sources.push_back(std::move(k));
      }
    }
  }
  return sources;
}

}  // namespace gpgpu::nn::detail
