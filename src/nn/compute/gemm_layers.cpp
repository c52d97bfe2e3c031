// Dense and Conv2D on the compute backend: forward, input gradient and weight gradient, each
// one implicit GEMM (gemm.hpp) whose load and store functions are written here.
//
//   GEMM            M                 N       K                 A(m, k)          B(k, n)
//   conv forward    batch OH OW       CO      CI KS KS          im2col(x)        w[n][k]
//   conv dx         batch IH IW       CI      CO KS KS          col2im(dy)       w[co][n][kk]
//   conv dw, db     CI KS KS + 1      CO      batch OH OW       im2col(x)^T, 1   dy
//   dense forward   batch             NOUT    NIN               x                w^T
//   dense dx        batch             NIN     NOUT              dy               w
//   dense dw, db    NOUT              NIN + 1 batch             dy^T             x, 1
// The extra row (conv) or column (dense) of ones makes the bias gradient (a sum of dy over
// the batch and positions) the last row or column of the weight-gradient GEMM. The three
// store functions are the same for both layers but for where (m, n) lands, which each layer
// says with Y_AT, DX_AT, IS_WEIGHT, W_AT and B_AT.
#include <array>
#include <optional>

#include <fmt/format.h>

#include "gemm.hpp"
#include "glsl/ops.hpp"
#include "glsl/snippets.hpp"
#include "glsl/stage_defines.hpp"
#include "runners.hpp"

namespace gpgpu::nn::detail {

namespace {

// Forward: y = act(v + bias) at Y_AT(m, n).
const std::string forward_result = std::string(activation_glsl) + R"(
layout(std430, binding = 2) writeonly buffer Output { float y[]; };
layout(std430, binding = 3) readonly buffer Bias { float bias[]; };
void store_c(int m, int n, float v) { y[Y_AT(m, n)] = apply_act(v + bias[B_OFF + n]); }
)";

// Input gradient: dx at DX_AT(m, n), times the derivative of the input's activation.
const std::string input_gradient_result = std::string(activation_glsl) + R"(
layout(std430, binding = 2) writeonly buffer InputGradient { float dx[]; };
#if IN_ACT != 0
layout(std430, binding = 3) readonly buffer Input { float xin[]; };
#endif
void store_c(int m, int n, float v) {
  int i = DX_AT(m, n);
#if IN_ACT != 0
  v *= in_act_grad(xin[i]);
#endif
  dx[i] = v;
}
)";

// Weight and bias gradients: the weight at W_AT(m, n), the bias (the row or column of ones)
// at B_AT(m, n).
constexpr const char* weight_gradient_result = R"(
layout(std430, binding = 2) writeonly buffer Gradients { float g[]; };
void store_c(int m, int n, float v) {
  if (IS_WEIGHT(m, n)) {
    g[W_OFF + W_AT(m, n)] = v;
  } else {
    g[B_OFF + B_AT(m, n)] = v;
  }
}
)";

// Where (m, n) of each GEMM lands, for the store functions (the split-K sum compiles them
// without the operands).
constexpr const char* conv_stores = R"(
#define Y_AT(m, n) (((m) / OHW * CO + (n)) * OHW + (m) - (m) / OHW * OHW)
#define DX_AT(m, n) (((m) / IHW * CI + (n)) * IHW + (m) - (m) / IHW * IHW)
#define IS_WEIGHT(m, n) ((m) < KC)
#define W_AT(m, n) ((n) * KC + (m))
#define B_AT(m, n) (n)
)";
constexpr const char* dense_stores = R"(
#define Y_AT(m, n) ((m) * NOUT + (n))
#define DX_AT(m, n) ((m) * NIN + (n))
#define IS_WEIGHT(m, n) ((n) < NIN)
#define W_AT(m, n) ((m) * NIN + (n))
#define B_AT(m, n) (m)
)";

constexpr const char* conv_layout = R"(
// Output position m = (img, oy, ox) and tap k = (ci, ky, kx) of the GEMMs.
void split_mk(int m, int plane, int width, int k, out int img, out int my, out int mx,
              out int c, out int ky, out int kx) {
  img = m / plane;
  int r = m - img * plane;
  my = r / width;
  mx = r - my * width;
  c = k / KK;
  int kr = k - c * KK;
  ky = kr / KS;
  kx = kr - ky * KS;
}
)";

// A(m, k) of the forward GEMM: the im2col matrix, read where it would be.
constexpr const char* conv_im2col = R"(
float im2col(int m, int k) {
  int img, oy, ox, ci, ky, kx;
  split_mk(m, OHW, OW, k, img, oy, ox, ci, ky, kx);
  int at = conv_input_index(img, ci, oy, ox, ky, kx);
  if (at < 0) return 0.0;
  return x[at];
}
)";

constexpr const char* dense_layout = "";

// A GEMM's operand snippet: its two input buffers, then the layer's layout and the loads.
std::string operands(const char* first, const char* second, std::string layout, const char* loads) {
  return fmt::format(
      "layout(std430, binding = 0) readonly buffer Operand0 {{ float {}[]; }};\n"
      "layout(std430, binding = 1) readonly buffer Operand1 {{ float {}[]; }};\n{}{}",
      first, second, layout, loads);
}

struct LinearGemm {
  GemmShape shape;
  GemmSource source;
};

int as_int(std::size_t v, const char* what) {
  return std::stoi(glsl_int(v, what));
}

GemmSource source(std::string operand_text, const char* stores, const std::string& result,
                  bool a_k_fast, bool b_k_fast, const Defines& d) {
  return {std::move(operand_text), stores + result, a_k_fast, b_k_fast, d};
}

// The three GEMMs of a convolution.
std::array<LinearGemm, 3> conv_gemms(const Stage& s, std::size_t batch, const Defines& d) {
  const ConvGeometry g = s.conv();
  const int rows = as_int(batch * g.out_plane(), "batch x output positions");
  const int filters = as_int(g.co, "filters"), depth = as_int(g.depth(), "CI k k");
  const char* dx_loads = R"(
float load_a(int m, int k) {
  int img, iy, ix, co, ky, kx;
  split_mk(m, IHW, IW, k, img, iy, ix, co, ky, kx);
  int at = conv_output_index(img, co, iy, ix, ky, kx);
  if (at < 0) return 0.0;
  return dy[at];
}
float load_b(int k, int n) {
  int co = k / KK;
  return p[W_OFF + (co * CI + n) * KK + (k - co * KK)];
}
)";
  const std::string layout = std::string(glsl::conv_indices) + conv_layout;
  const std::string with_im2col = layout + conv_im2col;
  const char* dw_loads = R"(
float load_a(int m, int k) { return m == KC ? 1.0 : im2col(k, m); }
float load_b(int k, int n) { return dy[(k / OHW * CO + n) * OHW + k - k / OHW * OHW]; }
)";
  std::array<LinearGemm, 3> gemms{
      LinearGemm{{rows, filters, depth},
                 source(operands("x", "p", with_im2col,
                                 "float load_a(int m, int k) { return im2col(m, k); }\n"
                                 "float load_b(int k, int n) { return p[W_OFF + n * KC + k]; }\n"),
                        conv_stores, forward_result, false, true, d)},
      LinearGemm{{depth + 1, filters, rows},
                 source(operands("x", "dy", with_im2col, dw_loads), conv_stores,
                        weight_gradient_result, true, true, d)},
      LinearGemm{{as_int(batch * g.in_plane(), "batch x input positions"), as_int(g.ci, "channels"),
                  as_int(g.co * g.taps(), "CO k k")},
                 source(operands("dy", "p", layout, dx_loads), conv_stores, input_gradient_result,
                        false, true, d)}};
  // Their loads compute im2col and col2im addresses (candidate_tilings).
  for (auto& gemm : gemms) gemm.source.computed_loads = true;
  return gemms;
}

// The three GEMMs of a dense layer.
std::array<LinearGemm, 3> dense_gemms(const Stage& s, std::size_t batch, const Defines& d) {
  const int rows = as_int(batch, "batch"), nin = as_int(s.in[0], "inputs"),
            nout = as_int(s.out[0], "units");
  return {
      LinearGemm{{rows, nout, nin},
                 source(operands("x", "p", dense_layout,
                                 "float load_a(int m, int k) { return x[m * NIN + k]; }\n"
                                 "float load_b(int k, int n) { return p[W_OFF + n * NIN + k]; }\n"),
                        dense_stores, forward_result, true, true, d)},
      LinearGemm{
          {nout, nin + 1, rows},
          source(
              operands("dy", "x", dense_layout,
                       "float load_a(int m, int k) { return dy[k * NOUT + m]; }\n"
                       "float load_b(int k, int n) { return n == NIN ? 1.0 : x[k * NIN + n]; }\n"),
              dense_stores, weight_gradient_result, false, false, d)},
      LinearGemm{{rows, nin, nout},
                 source(operands("dy", "p", dense_layout,
                                 "float load_a(int m, int k) { return dy[m * NOUT + k]; }\n"
                                 "float load_b(int k, int n) { return p[W_OFF + k * NIN + n]; }\n"),
                        dense_stores, input_gradient_result, true, false, d)}};
}

// The GEMMs of a stage (forward, weight gradient, input gradient) and their labels.
std::array<LinearGemm, 3> linear_gemms(const Stage& stage, std::size_t batch, Mode mode) {
  const Defines d = stage_defines(stage, batch, mode);
  return stage.kind == Stage::Kind::Conv ? conv_gemms(stage, batch, d)
                                         : dense_gemms(stage, batch, d);
}
constexpr const char* gemm_roles[] = {" forward", " weight gradient", " input gradient"};
std::string linear_label(const Stage& stage) {
  return fmt::format("nn {} (layer {})", layer_type(stage.spec), stage.layer);
}

class LinearRunner final : public StageKernels {
 public:
  LinearRunner(const ComputeStageContext& sc, const Stage& stage, StageBuffers b)
      : sc_(sc), stage_(stage), b_(b) {
    auto gemms = linear_gemms(stage, sc.batch, sc.mode);
    const std::string label = linear_label(stage);
    auto make = [&](std::optional<Gemm>& gemm, int role) {
      LinearGemm& g = gemms[role];
      gemm.emplace(sc.context, g.shape, std::move(g.source), sc.options, label + gemm_roles[role]);
    };
    make(forward_, 0);
    if (b.dy != nullptr) make(weights_, 1);
    if (b.dx != nullptr) make(input_, 2);
  }

  void forward(std::uint32_t) override {
    forward_->run({{"x", *b_.x}, {"p", sc_.params}}, {{"y", *b_.y}, {"bias", sc_.params}});
  }

  void backward() override {
    weights_->run({{"x", *b_.x}, {"dy", *b_.dy}}, {{"g", sc_.gradients}});
    if (!input_) return;
    Args result{{"dx", *b_.dx}};
    if (!stage_.input_act.none()) result.emplace_back("xin", *b_.x);
    input_->run({{"dy", *b_.dy}, {"p", sc_.params}}, result);
  }

 private:
  ComputeStageContext sc_;
  const Stage& stage_;
  StageBuffers b_;
  std::optional<Gemm> forward_, weights_, input_;
};

}  // namespace

std::unique_ptr<StageKernels> make_gemm_runner(const ComputeStageContext& sc, const Stage& stage,
                                               StageBuffers buffers) {
  return std::make_unique<LinearRunner>(sc, stage, buffers);
}

std::vector<KernelSource> gemm_stage_sources(const DeviceInfo& info, const Stage& stage,
                                             std::size_t batch, Mode mode,
                                             const BackendOptions& options,
                                             StageKernelNeeds needs) {
  const auto gemms = linear_gemms(stage, batch, mode);
  const bool roles[] = {true, needs.gradients, needs.input_gradient};
  const bool shared = shared_tiles(info, options);
  std::vector<KernelSource> sources;
  for (int role = 0; role < 3; ++role) {
    if (!roles[role]) continue;
    const LinearGemm& g = gemms[role];
    for (const auto& t : candidate_tilings(info, g.shape, shared, g.source.computed_loads)) {
      for (auto& k : gemm_kernel_sources(info, g.shape, g.source, t,
                                         linear_label(stage) + gemm_roles[role])) {
        sources.push_back(std::move(k));
      }
    }
  }
  return sources;
}

}  // namespace gpgpu::nn::detail
