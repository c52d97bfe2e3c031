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
// the batch and positions) the last row or column of the weight-gradient GEMM.
#include <optional>

#include <fmt/format.h>

#include "gemm.hpp"
#include "glsl_common.hpp"
#include "runners.hpp"

namespace gpgpu::nn::detail {

namespace {

constexpr const char* conv_im2col = R"(
float im2col(int m, int k) {
  int img = m / OHW;
  int r = m - img * OHW;
  int oy = r / OW;
  int ox = r - oy * OW;
  int ci = k / KK;
  int kr = k - ci * KK;
  int ky = kr / KS;
  int kx = kr - ky * KS;
  int iy = oy * STRIDE + ky - PAD;
  int ix = ox * STRIDE + kx - PAD;
  if (iy < 0 || iy >= IH || ix < 0 || ix >= IW) return 0.0;
  return x[((img * CI + ci) * IH + iy) * IW + ix];
}
)";

GemmSource conv_forward(Defines d) {
  GemmSource s;
  s.operands = std::string(R"(
layout(std430, binding = 0) readonly buffer Input { float x[]; };
layout(std430, binding = 1) readonly buffer Params { float p[]; };
)") + conv_im2col +
               R"(
float load_a(int m, int k) { return im2col(m, k); }
float load_b(int k, int n) { return p[W_OFF + n * KC + k]; }
)";
  s.result = std::string(activation_glsl) + R"(
layout(std430, binding = 2) writeonly buffer Output { float y[]; };
layout(std430, binding = 3) readonly buffer Bias { float bias[]; };
void store_c(int m, int n, float v) {
  int img = m / OHW;
  y[(img * CO + n) * OHW + (m - img * OHW)] = apply_act(v + bias[B_OFF + n]);
}
)";
  s.b_k_fast = true;
  s.defines = std::move(d);
  return s;
}

// dx(img, ci, iy, ix) = sum over (co, ky, kx) of dy(img, co, oy, ox) w(co, ci, ky, kx) where
// oy STRIDE = iy + PAD - ky (and likewise ox) has a whole solution inside the output.
GemmSource conv_input_gradient(Defines d) {
  GemmSource s;
  s.operands = R"(
layout(std430, binding = 0) readonly buffer OutputGradient { float dy[]; };
layout(std430, binding = 1) readonly buffer Params { float p[]; };
float load_a(int m, int k) {
  int img = m / IHW;
  int r = m - img * IHW;
  int iy = r / IW;
  int ix = r - iy * IW;
  int co = k / KK;
  int kr = k - co * KK;
  int ky = kr / KS;
  int kx = kr - ky * KS;
  int ty = iy + PAD - ky;
  int tx = ix + PAD - kx;
  if (ty < 0 || tx < 0) return 0.0;
#if STRIDE > 1
  if (ty % STRIDE != 0 || tx % STRIDE != 0) return 0.0;
  ty /= STRIDE;
  tx /= STRIDE;
#endif
  if (ty >= OH || tx >= OW) return 0.0;
  return dy[((img * CO + co) * OH + ty) * OW + tx];
}
float load_b(int k, int n) {
  int co = k / KK;
  return p[W_OFF + (co * CI + n) * KK + (k - co * KK)];
}
)";
  s.result = std::string(activation_glsl) + R"(
layout(std430, binding = 2) writeonly buffer InputGradient { float dx[]; };
#if IN_ACT != 0
layout(std430, binding = 3) readonly buffer Input { float xin[]; };
#endif
void store_c(int m, int n, float v) {
  int img = m / IHW;
  int i = (img * CI + n) * IHW + (m - img * IHW);
#if IN_ACT != 0
  v *= in_act_grad(xin[i]);
#endif
  dx[i] = v;
}
)";
  s.b_k_fast = true;
  s.defines = std::move(d);
  return s;
}

GemmSource conv_weight_gradient(Defines d) {
  GemmSource s;
  s.operands = std::string(R"(
layout(std430, binding = 0) readonly buffer Input { float x[]; };
layout(std430, binding = 1) readonly buffer OutputGradient { float dy[]; };
)") + conv_im2col +
               R"(
float load_a(int m, int k) { return m == KC ? 1.0 : im2col(k, m); }
float load_b(int k, int n) {
  int img = k / OHW;
  return dy[(img * CO + n) * OHW + (k - img * OHW)];
}
)";
  s.result = R"(
layout(std430, binding = 2) writeonly buffer Gradients { float g[]; };
void store_c(int m, int n, float v) {
  if (m < KC) {
    g[W_OFF + n * KC + m] = v;
  } else {
    g[B_OFF + n] = v;
  }
}
)";
  s.a_k_fast = true;
  s.b_k_fast = true;
  s.defines = std::move(d);
  return s;
}

GemmSource dense_forward(Defines d) {
  GemmSource s;
  s.operands = R"(
layout(std430, binding = 0) readonly buffer Input { float x[]; };
layout(std430, binding = 1) readonly buffer Params { float p[]; };
float load_a(int m, int k) { return x[m * NIN + k]; }
float load_b(int k, int n) { return p[W_OFF + n * NIN + k]; }
)";
  s.result = std::string(activation_glsl) + R"(
layout(std430, binding = 2) writeonly buffer Output { float y[]; };
layout(std430, binding = 3) readonly buffer Bias { float bias[]; };
void store_c(int m, int n, float v) { y[m * NOUT + n] = apply_act(v + bias[B_OFF + n]); }
)";
  s.a_k_fast = true;
  s.b_k_fast = true;
  s.defines = std::move(d);
  return s;
}

GemmSource dense_input_gradient(Defines d) {
  GemmSource s;
  s.operands = R"(
layout(std430, binding = 0) readonly buffer OutputGradient { float dy[]; };
layout(std430, binding = 1) readonly buffer Params { float p[]; };
float load_a(int m, int k) { return dy[m * NOUT + k]; }
float load_b(int k, int n) { return p[W_OFF + k * NIN + n]; }
)";
  s.result = std::string(activation_glsl) + R"(
layout(std430, binding = 2) writeonly buffer InputGradient { float dx[]; };
#if IN_ACT != 0
layout(std430, binding = 3) readonly buffer Input { float xin[]; };
#endif
void store_c(int m, int n, float v) {
  int i = m * NIN + n;
#if IN_ACT != 0
  v *= in_act_grad(xin[i]);
#endif
  dx[i] = v;
}
)";
  s.a_k_fast = true;
  s.defines = std::move(d);
  return s;
}

GemmSource dense_weight_gradient(Defines d) {
  GemmSource s;
  s.operands = R"(
layout(std430, binding = 0) readonly buffer OutputGradient { float dy[]; };
layout(std430, binding = 1) readonly buffer Input { float x[]; };
float load_a(int m, int k) { return dy[k * NOUT + m]; }
float load_b(int k, int n) { return n == NIN ? 1.0 : x[k * NIN + n]; }
)";
  s.result = R"(
layout(std430, binding = 2) writeonly buffer Gradients { float g[]; };
void store_c(int m, int n, float v) {
  if (n < NIN) {
    g[W_OFF + m * NIN + n] = v;
  } else {
    g[B_OFF + m] = v;
  }
}
)";
  s.defines = std::move(d);
  return s;
}

int as_int(std::size_t v, const char* what) {
  return std::stoi(glsl_int(v, what));
}

// The arguments of a result snippet that reads the stage's input for IN_ACT.
Args with_input(Args args, const Stage& stage, const Buffer& x) {
  if (stage.input_act != Act::None) args.emplace_back("xin", x);
  return args;
}

class ConvRunner final : public ComputeRunner {
 public:
  ConvRunner(const ComputeStageContext& sc, const Stage& stage, StageBuffers b)
      : sc_(sc), stage_(stage), b_(b) {
    const auto& conv = std::get<Conv2D>(stage.spec);
    const std::size_t ci = stage.in[0], ih = stage.in[1], iw = stage.in[2];
    const std::size_t co = stage.out[0], oh = stage.out[1], ow = stage.out[2];
    const std::size_t kk = conv.kernel * conv.kernel, kc = ci * kk;
    Defines d = activation_defines(stage.act, stage.input_act);
    for (auto [name, value] : {std::pair{"BATCH", sc.batch},
                               {"CI", ci},
                               {"IH", ih},
                               {"IW", iw},
                               {"CO", co},
                               {"OH", oh},
                               {"OW", ow},
                               {"KS", conv.kernel},
                               {"STRIDE", conv.stride},
                               {"PAD", conv.padding},
                               {"KK", kk},
                               {"KC", kc},
                               {"OHW", oh * ow},
                               {"IHW", ih * iw},
                               {"W_OFF", stage.offsets[0]},
                               {"B_OFF", stage.offsets[1]}}) {
      d.emplace_back(name, glsl_int(value, name));
    }
    const std::string label = fmt::format("nn conv2d (layer {})", stage.layer);
    const int batch_out = as_int(sc.batch * oh * ow, "batch x output positions");
    forward_.emplace(sc.context, GemmShape{batch_out, as_int(co, "filters"), as_int(kc, "CI k k")},
                     conv_forward(d), sc.options, label + " forward");
    if (b.dy != nullptr) {
      weights_.emplace(sc.context,
                       GemmShape{as_int(kc + 1, "CI k k"), as_int(co, "filters"), batch_out},
                       conv_weight_gradient(d), sc.options, label + " weight gradient");
    }
    if (b.dx != nullptr) {
      input_.emplace(sc.context,
                     GemmShape{as_int(sc.batch * ih * iw, "batch x input positions"),
                               as_int(ci, "channels"), as_int(co * kk, "CO k k")},
                     conv_input_gradient(d), sc.options, label + " input gradient");
    }
  }

  void forward(std::uint32_t) override {
    forward_->run({{"x", *b_.x}, {"p", sc_.params}}, {{"y", *b_.y}, {"bias", sc_.params}});
  }

  void backward() override {
    weights_->run({{"x", *b_.x}, {"dy", *b_.dy}}, {{"g", sc_.gradients}});
    if (input_) {
      input_->run({{"dy", *b_.dy}, {"p", sc_.params}}, with_input({{"dx", *b_.dx}}, stage_, *b_.x));
    }
  }

 private:
  ComputeStageContext sc_;
  const Stage& stage_;
  StageBuffers b_;
  std::optional<Gemm> forward_, weights_, input_;
};

class DenseRunner final : public ComputeRunner {
 public:
  DenseRunner(const ComputeStageContext& sc, const Stage& stage, StageBuffers b)
      : sc_(sc), stage_(stage), b_(b) {
    const std::size_t in = stage.in[0], out = stage.out[0];
    Defines d = activation_defines(stage.act, stage.input_act);
    for (auto [name, value] : {std::pair{"BATCH", sc.batch},
                               {"NIN", in},
                               {"NOUT", out},
                               {"W_OFF", stage.offsets[0]},
                               {"B_OFF", stage.offsets[1]}}) {
      d.emplace_back(name, glsl_int(value, name));
    }
    const std::string label = fmt::format("nn dense (layer {})", stage.layer);
    const int batch = as_int(sc.batch, "batch"), nin = as_int(in, "inputs"),
              nout = as_int(out, "units");
    forward_.emplace(sc.context, GemmShape{batch, nout, nin}, dense_forward(d), sc.options,
                     label + " forward");
    if (b.dy != nullptr) {
      weights_.emplace(sc.context, GemmShape{nout, nin + 1, batch}, dense_weight_gradient(d),
                       sc.options, label + " weight gradient");
    }
    if (b.dx != nullptr) {
      input_.emplace(sc.context, GemmShape{batch, nin, nout}, dense_input_gradient(d), sc.options,
                     label + " input gradient");
    }
  }

  void forward(std::uint32_t) override {
    forward_->run({{"x", *b_.x}, {"p", sc_.params}}, {{"y", *b_.y}, {"bias", sc_.params}});
  }

  void backward() override {
    weights_->run({{"dy", *b_.dy}, {"x", *b_.x}}, {{"g", sc_.gradients}});
    if (input_) {
      input_->run({{"dy", *b_.dy}, {"p", sc_.params}}, with_input({{"dx", *b_.dx}}, stage_, *b_.x));
    }
  }

 private:
  ComputeStageContext sc_;
  const Stage& stage_;
  StageBuffers b_;
  std::optional<Gemm> forward_, weights_, input_;
};

}  // namespace

std::unique_ptr<ComputeRunner> make_gemm_runner(const ComputeStageContext& sc, const Stage& stage,
                                                StageBuffers buffers) {
  if (stage.kind == Stage::Kind::Conv) return std::make_unique<ConvRunner>(sc, stage, buffers);
  return std::make_unique<DenseRunner>(sc, stage, buffers);
}

}  // namespace gpgpu::nn::detail
