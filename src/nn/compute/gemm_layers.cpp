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
#include "linear_gemms.hpp"
#include "pool_fusion.hpp"
#include "runners.hpp"
#include "staged_conv.hpp"

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

// The operand snippets of a convolution split their address arithmetic in two (gemm.hpp's
// A_PARTS and B_PARTS): a row's part and a depth's, added in the k loop. load_a and load_b
// (the direct kernel's) are the same sums.
constexpr const char* loads_from_parts = R"(
float load_a(int m, int k) { return load_a_parts(a_part_m(m), a_part_k(k)); }
float load_b(int k, int n) { return load_b_parts(b_part_k(k), n); }
)";

// A convolution GEMM's row or depth index as its coordinates, for the loads' parts: position
// m of planes of `plane` elements, `width` wide, as (image, row, column); tap k as (channel,
// row, column, index among the channel's taps).
constexpr const char* conv_splits = R"(
ivec3 split_position(int m, int plane, int width) {
  int img = m / plane;
  int r = m - img * plane;
  int y = r / width;
  return ivec3(img, y, r - y * width);
}
ivec4 split_tap(int k) {
  int c = k / KK;
  int kr = k - c * KK;
  int ky = kr / KS;
  return ivec4(c, ky, kr - ky * KS, kr);
}
)";

// im2col in two parts: an output position (img, oy, ox) as its image's input address at the
// row and column its window starts at, and that row and column; a tap (ci, ky, kx) as its
// offset from there, and its row and column in the window. Their sum addresses x; outside
// the input (the padding), the element is 0.
constexpr const char* conv_im2col = R"(
ivec3 conv_position_of(int img, int oy, int ox) {
  int y0 = oy * STRIDE - PAD_T;
  int x0 = ox * STRIDE - PAD_L;
  return ivec3((img * CI * IH + y0) * IW + x0, y0, x0);
}
ivec3 conv_position(int m) {
  ivec3 at = split_position(m, OHW, OW);
  return conv_position_of(at.x, at.y, at.z);
}
ivec3 conv_tap(int k) {
  ivec4 tap = split_tap(k);
  return ivec3((tap.x * IH + tap.y) * IW + tap.z, tap.y, tap.z);
}
float im2col_at(ivec3 position, ivec3 tap) {
  int iy = position.y + tap.y;
  int ix = position.z + tap.z;
  if (uint(iy) >= uint(IH) || uint(ix) >= uint(IW)) return 0.0;
  return x[position.x + tap.x];
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
// A convolution's operand snippet: its loads in parts (conv_gemms' snippets), and load_a and
// load_b made from them.
std::string conv_operands(const char* first, const char* second, const std::string& layout,
                          const char* parts) {
  return operands(first, second, layout, parts) + loads_from_parts;
}

int as_int(std::size_t v, const char* what) {
  return std::stoi(glsl_int(v, what));
}

GemmSource source(std::string operand_text, const char* stores, const std::string& result,
                  bool a_k_fast, bool b_k_fast, const Defines& d) {
  return {std::move(operand_text), stores + result, a_k_fast, b_k_fast, d};
}

// The gradient GEMMs read dL/d(convolution output) at index `at` through
// conv_output_gradient: from the array dy, or, with a pooling fused in, from the pooled
// gradient dyp through the pooling (glsl::pooled_gradient; arg and yp, or ypre, beside it).
constexpr const char* read_output_gradient =
    "float conv_output_gradient(int at) { return dy[at]; }\n";
constexpr const char* pooled_gradient_arrays = R"(
#ifndef LOAD
#define LOAD(a, j) a[j]
#endif
#ifdef MAX_POOL
layout(std430, binding = 4) readonly buffer PoolIndices { float arg[]; };
layout(std430, binding = 5) readonly buffer PooledOutput { float yp[]; };
#elif ACT != 0
layout(std430, binding = 5) readonly buffer PrePool { float ypre[]; };
#endif
)";
constexpr const char* read_pooled_gradient =
    "float conv_output_gradient(int at) { return pooled_gradient(at); }\n";

// A fused forward GEMM's row m: element m % WIN of pooling window m / WIN, the window
// (img, py, px) of the pooled output, the element at (oy, ox) of the convolution's output;
// false where that lies outside it (the pooling's padding or a ceil-mode window). Both the
// loads and the epilogue (which the split-K sum compiles alone) include it.
constexpr const char* window_rows = R"(
#ifndef WINDOW_ROW
#define WINDOW_ROW
bool window_row(int m, out int img, out int py, out int px, out int oy, out int ox) {
  int w = m / WIN;
  int e = m - w * WIN;
  img = w / (P_OH * P_OW);
  int r = w - img * (P_OH * P_OW);
  py = r / P_OW;
  px = r - py * P_OW;
  int wy = e / P_SIZE_X;
  oy = py * P_STRIDE - P_PAD_T + wy;
  ox = px * P_STRIDE - P_PAD_L + e - wy * P_SIZE_X;
  return oy >= 0 && oy < OH && ox >= 0 && ox < OW;
}
#endif
)";
// Rows outside the convolution's output start above the input, so that every tap reads 0.
constexpr const char* pooled_forward_loads = R"(
#define A_PARTS
ivec3 a_part_m(int m) {
  int img, py, px, oy, ox;
  if (!window_row(m, img, py, px, oy, ox)) return ivec3(0, -IH - KS, 0);
  return conv_position_of(img, oy, ox);
}
ivec3 a_part_k(int k) { return conv_tap(k); }
float load_a_parts(ivec3 position, ivec3 tap) { return im2col_at(position, tap); }
#define B_PARTS
int b_part_k(int k) { return W_OFF + k; }
float load_b_parts(int k, int n) { return p[k + n * KC]; }
)";
constexpr const char* forward_loads = R"(
#define A_PARTS
ivec3 a_part_m(int m) { return conv_position(m); }
ivec3 a_part_k(int k) { return conv_tap(k); }
float load_a_parts(ivec3 position, ivec3 tap) { return im2col_at(position, tap); }
#define B_PARTS
int b_part_k(int k) { return W_OFF + k; }
float load_b_parts(int k, int n) { return p[k + n * KC]; }
)";
// The weight gradient: A's rows are taps (the last, KC, the bias's row of ones: offset -1),
// its depth output positions; B's depth part is the image's and position's part of dy's
// address.
constexpr const char* weight_gradient_loads = R"(
#define A_PARTS
ivec3 a_part_m(int m) { return m == KC ? ivec3(-1, 0, 0) : conv_tap(m); }
ivec3 a_part_k(int k) { return conv_position(k); }
float load_a_parts(ivec3 tap, ivec3 position) { return tap.x < 0 ? 1.0 : im2col_at(position, tap); }
#define B_PARTS
int b_part_k(int k) {
  int img = k / OHW;
  return img * CO * OHW + k - img * OHW;
}
float load_b_parts(int k, int n) { return conv_output_gradient(k + n * OHW); }
)";
// The input gradient: col2im in two parts. With stride 1, an input position (img, iy, ix) as
// dy's address, row and column under tap (0, 0) and a tap (co, ky, kx) as what it moves
// them by; with a larger stride, the indices themselves (conv_output_index checks that the
// stride divides the distance).
constexpr const char* input_gradient_loads = R"(
#define A_PARTS
#if STRIDE == 1
ivec3 a_part_m(int m) {
  ivec3 at = split_position(m, IHW, IW);
  int ty = at.y + PAD_T, tx = at.z + PAD_L;
  return ivec3((at.x * CO * OH + ty) * OW + tx, ty, tx);
}
ivec3 a_part_k(int k) {
  ivec4 tap = split_tap(k);
  return ivec3(tap.x * OHW - tap.y * OW - tap.z, tap.y, tap.z);
}
float load_a_parts(ivec3 position, ivec3 tap) {
  int ty = position.y - tap.y, tx = position.z - tap.z;
  if (uint(ty) >= uint(OH) || uint(tx) >= uint(OW)) return 0.0;
  return conv_output_gradient(position.x + tap.x);
}
#else
ivec3 a_part_m(int m) { return split_position(m, IHW, IW); }
ivec3 a_part_k(int k) { return split_tap(k).xyz; }
float load_a_parts(ivec3 position, ivec3 tap) {
  int at = conv_output_index(position.x, tap.x, position.y, position.z, tap.y, tap.z);
  if (at < 0) return 0.0;
  return conv_output_gradient(at);
}
#endif
#define B_PARTS
int b_part_k(int k) {
  ivec4 tap = split_tap(k);
  return W_OFF + tap.x * CI * KK + tap.w;
}
float load_b_parts(int k, int n) { return p[k + n * KK]; }
)";
// The fused epilogue: act(v + bias) of each position a window covers, reduced as the pooling
// kernel does (pool_output), value by value in window order.
constexpr const char* pooled_forward_result = R"(
layout(std430, binding = 2) writeonly buffer Output { float y[]; };
layout(std430, binding = 3) readonly buffer Bias { float bias[]; };
#if defined(MAX_POOL) && defined(TRAIN)
layout(std430, binding = 4) writeonly buffer PoolIndices { float arg[]; };
#endif
#ifdef PRE_POOL
layout(std430, binding = 5) writeonly buffer PrePool { float ypre[]; };
#endif
void store_rows(int m, int n, vec4 v) {
  for (int w = 0; w < 4; w += WIN) {
    if (m + w >= GM) return;
    int img, py, px, oy, ox;
    int best_at = -1;
    float best = 0.0;
    float sum = 0.0;
    for (int e = 0; e < WIN; ++e) {
      if (!window_row(m + w + e, img, py, px, oy, ox)) continue;
      float a = apply_act(v[w + e] + bias[B_OFF + n]);
#ifdef PRE_POOL
      ypre[((img * CO + n) * OH + oy) * OW + ox] = a;
#endif
      pool_add(a, oy * OW + ox, best_at, best, sum);
    }
    int o = ((img * CO + n) * P_OH + py) * P_OW + px;
    y[o] = pool_value(best, sum, py, px);
#if defined(MAX_POOL) && defined(TRAIN)
    arg[o] = float(best_at);
#endif
  }
}
)";

// A stride-1 convolution's forward pass and input gradient as staged convolutions
// (staged_conv.hpp): the input gradient convolves dy with the flipped weights, padded by
// KS - 1 - PAD (StagedConvShape::flipped reads the weights as they are and the inputs in
// reverse). They store through the GEMMs' store functions.
constexpr const char* staged_forward_inputs = R"(
layout(std430, binding = 0) readonly buffer Operand0 { float x[]; };
float staged_input(int img, int c, int iy, int ix) { return x[((img * CI + c) * IH + iy) * IW + ix]; }
)";
constexpr const char* staged_forward_weights = R"(
layout(std430, binding = 1) readonly buffer Operand1 { float p[]; };
float staged_weight(int c, int tap, int n) { return p[W_OFF + (n * CI + c) * KK + tap]; }
)";
constexpr const char* staged_input_gradient_inputs = R"(
layout(std430, binding = 0) readonly buffer Operand0 { float dy[]; };
float conv_output_gradient(int at) { return dy[at]; }
float staged_input(int img, int c, int iy, int ix) {
  return conv_output_gradient(((img * CO + c) * OH + iy) * OW + ix);
}
)";
constexpr const char* staged_input_gradient_weights = R"(
layout(std430, binding = 1) readonly buffer Operand1 { float p[]; };
float staged_weight(int c, int tap, int n) { return p[W_OFF + (c * CI + n) * KK + tap]; }
)";

struct StagedConvPlan {
  StagedConvShape shape;
  StagedConvSource source;
  StagedConvTiling tiling;
};
enum StagedRole { staged_forward, staged_input_gradient };

// The staged convolution that runs a convolution stage's forward pass or input gradient on
// this device, if one does (stride 1, within the device's limits: staged_conv_tiling).
std::optional<StagedConvPlan> staged_conv(const DeviceInfo& info, const BackendOptions& options,
                                          const Stage& stage, std::size_t batch, const Defines& d,
                                          StagedRole role) {
  if (stage.kind != Stage::Kind::Conv || stage.conv().stride != 1) return std::nullopt;
  const ConvGeometry g = stage.conv();
  const int ks = as_int(g.kernel, "kernel");
  StagedConvPlan plan;
  plan.shape = {as_int(batch, "batch"),       as_int(g.ci, "channels"),
                as_int(g.co, "filters"),      as_int(g.ih, "input height"),
                as_int(g.iw, "input width"),  as_int(g.oh, "output height"),
                as_int(g.ow, "output width"), ks,
                as_int(g.pad.top, "padding"), as_int(g.pad.left, "padding")};
  if (role == staged_forward) {
    plan.source = {staged_forward_inputs, staged_forward_weights,
                   std::string(conv_stores) + forward_result, d};
  } else {
    auto& s = plan.shape;
    std::swap(s.channels, s.filters);
    std::swap(s.in_h, s.out_h);
    std::swap(s.in_w, s.out_w);
    s.pad_t = ks - 1 - s.pad_t;
    s.pad_l = ks - 1 - s.pad_l;
    s.flipped = true;  // the taps in the input-gradient GEMM's order: the same bits
    plan.source = {staged_input_gradient_inputs, staged_input_gradient_weights,
                   std::string(conv_stores) + input_gradient_result, d};
  }
  const auto tiling = staged_conv_tiling(info, options, plan.shape);
  if (!tiling) return std::nullopt;
  plan.tiling = *tiling;
  return plan;
}

}  // namespace

// The three GEMMs of a convolution (linear_gemms.hpp).
std::array<LinearGemm, 3> conv_gemms(const Stage& s, std::size_t batch, const Defines& defines,
                                     const PoolFusion* fusion, const Stage* pool) {
  const ConvGeometry g = s.conv();
  Defines d = defines;
  const int positions = as_int(batch * g.out_plane(), "batch x output positions");
  int rows = positions;
  if (fusion != nullptr) {
    const PoolGeometry pg = pool->pool();
    for (auto& define : pool_defines(*pool, fusion->train ? Mode::Train : Mode::Eval)) {
      d.push_back(std::move(define));
    }
    d.emplace_back("WIN", std::to_string(fusion->window));
    if (fusion->pre_pool) d.emplace_back("PRE_POOL", "");
    rows = as_int(batch * pg.oh * pg.ow * static_cast<std::size_t>(fusion->window),
                  "batch x pooling windows x window");
  }
  const bool pooled_loads = fusion != nullptr && !fusion->gradient_kernel;
  const int filters = as_int(g.co, "filters"), depth = as_int(g.depth(), "CI k k");
  const std::string indices = std::string(glsl::conv_indices) + conv_splits;
  const std::string layout = indices + conv_im2col;  // reads x
  // What the gradient GEMMs read dL/d(output) from, and through what.
  const char* gradient = pooled_loads ? "dyp" : "dy";
  const std::string reading = pooled_loads ? std::string(activation_glsl) + pooled_gradient_arrays +
                                                 glsl::pooling_area + glsl::pooled_gradient +
                                                 read_pooled_gradient
                                           : read_output_gradient;
  LinearGemm forward{{rows, filters, depth},
                     source(conv_operands("x", "p", layout, forward_loads), conv_stores,
                            forward_result, false, true, d)};
  if (fusion != nullptr) {
    forward.source = {
        conv_operands("x", "p", layout + window_rows, pooled_forward_loads),
        std::string(activation_glsl) + glsl::pooling_area + window_rows + pooled_forward_result,
        false, true, d};
    forward.source.store_rows = true;
  }
  std::array<LinearGemm, 3> gemms{
      std::move(forward),
      LinearGemm{{depth + 1, filters, positions},
                 source(conv_operands("x", gradient, layout + reading, weight_gradient_loads),
                        conv_stores, weight_gradient_result, true, true, d)},
      LinearGemm{{as_int(batch * g.in_plane(), "batch x input positions"), as_int(g.ci, "channels"),
                  as_int(g.co * g.taps(), "CO k k")},
                 source(conv_operands(gradient, "p", indices + reading, input_gradient_loads),
                        conv_stores, input_gradient_result, false, true, d)}};
  // Their loads compute im2col and col2im addresses (candidate_tilings).
  for (auto& gemm : gemms) gemm.source.computed_loads = true;
  return gemms;
}

namespace {

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
    const Defines d = stage_defines(stage, sc.batch, sc.mode);
    const DeviceInfo& info = sc.context.info();
    auto make = [&](std::optional<Gemm>& gemm, std::optional<StagedConv>& staged, int role,
                    StagedRole staged_role) {
      if (auto plan = staged_conv(info, sc.options, stage, sc.batch, d, staged_role)) {
        staged.emplace(sc.context, plan->shape, plan->source, plan->tiling,
                       label + gemm_roles[role]);
        return;
      }
      LinearGemm& g = gemms[role];
      gemm.emplace(sc.context, g.shape, std::move(g.source), sc.options, label + gemm_roles[role]);
    };
    make(forward_, staged_forward_, 0, staged_forward);
    if (b.dy != nullptr) {
      LinearGemm& g = gemms[1];
      weights_.emplace(sc.context, g.shape, std::move(g.source), sc.options, label + gemm_roles[1]);
    }
    if (b.dx != nullptr) make(input_, staged_input_, 2, staged_input_gradient);
  }

  void forward(std::uint32_t) override {
    const Args result{{"y", *b_.y}, {"bias", sc_.params}};
    if (staged_forward_) return staged_forward_->run({{"x", *b_.x}}, {{"p", sc_.params}}, result);
    forward_->run({{"x", *b_.x}, {"p", sc_.params}}, result);
  }

  void backward() override {
    weights_->run({{"x", *b_.x}, {"dy", *b_.dy}}, {{"g", sc_.gradients}});
    if (!input_ && !staged_input_) return;
    Args result{{"dx", *b_.dx}};
    if (!stage_.input_act.none()) result.emplace_back("xin", *b_.x);
    if (staged_input_) return staged_input_->run({{"dy", *b_.dy}}, {{"p", sc_.params}}, result);
    input_->run({{"dy", *b_.dy}, {"p", sc_.params}}, result);
  }

 private:
  ComputeStageContext sc_;
  const Stage& stage_;
  StageBuffers b_;
  std::optional<Gemm> forward_, weights_, input_;
  // Where the device runs a stride-1 convolution's forward pass or input gradient as a
  // staged convolution, instead of forward_ or input_.
  std::optional<StagedConv> staged_forward_, staged_input_;
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
  const Defines d = stage_defines(stage, batch, mode);
  const bool roles[] = {true, needs.gradients, needs.input_gradient};
  const bool shared = shared_tiles(info, options);
  std::vector<KernelSource> sources;
  for (int role = 0; role < 3; ++role) {
    if (!roles[role]) continue;
    const std::string label = linear_label(stage) + gemm_roles[role];
    if (role != 1) {
      const auto staged = staged_conv(info, options, stage, batch, d,
                                      role == 0 ? staged_forward : staged_input_gradient);
      if (staged) {
        for (auto& k :
             staged_conv_sources(info, staged->shape, staged->source, staged->tiling, label)) {
          sources.push_back(std::move(k));
        }
        continue;
      }
    }
    const LinearGemm& g = gemms[role];
    for (const auto& t : candidate_tilings(info, g.shape, shared, g.source.computed_loads)) {
      for (auto& k : gemm_kernel_sources(info, g.shape, g.source, t, label)) {
        sources.push_back(std::move(k));
      }
    }
  }
  return sources;
}

}  // namespace gpgpu::nn::detail
