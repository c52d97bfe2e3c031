// The transform-feedback backend's own kernels (tf_kernels.hpp).
#include "tf_kernels.hpp"

#include "glsl/ops.hpp"

namespace gpgpu::nn::detail::tf {

using glsl::ElementKernel;

const ElementKernel dense_forward{"dense", {}, {}, {{"x"}, {"p"}}, {{"y"}}, false, R"(
  int n = i / NOUT;
  int o = i - n * NOUT;
  float sum = 0.0;
  for (int k = 0; k < NIN; ++k) sum += LOAD(x, n * NIN + k) * LOAD(p, W_OFF + o * NIN + k);
  OUT(y) = apply_act(sum + LOAD(p, B_OFF + o));)"};

const ElementKernel dense_input_gradient{
    "dense input gradient", {}, {}, {{"dy"}, {"p"}}, {{"dx"}}, true, R"(
  int n = i / NIN;
  int k = i - n * NIN;
  float sum = 0.0;
  for (int o = 0; o < NOUT; ++o) sum += LOAD(dy, n * NOUT + o) * LOAD(p, W_OFF + o * NIN + k);
  OUT(dx) = sum * XIN_GRAD;)"};

const ElementKernel dense_weight_gradient{
    "dense weight gradient", {}, {}, {{"dy"}, {"x"}}, {{"g"}}, false, R"(
  int o = i / NIN;
  int k = i - o * NIN;
  float sum = 0.0;
  for (int n = 0; n < BATCH; ++n) sum += LOAD(dy, n * NOUT + o) * LOAD(x, n * NIN + k);
  OUT(g) = sum;)"};

const ElementKernel dense_bias_gradient{
    "dense bias gradient", {}, {}, {{"dy"}}, {{"g"}}, false, R"(
  float sum = 0.0;
  for (int n = 0; n < BATCH; ++n) sum += LOAD(dy, n * NOUT + i);
  OUT(g) = sum;)"};

const ElementKernel conv_forward{"conv2d", {glsl::conv_indices}, {}, {{"x"}, {"p"}}, {{"y"}}, false,
                                 R"(
  int n = i / (CO * OHW);
  int r = i - n * (CO * OHW);
  int co = r / OHW;
  r -= co * OHW;
  int oy = r / OW;
  int ox = r - oy * OW;
  float sum = 0.0;
  for (int ci = 0; ci < CI; ++ci) {
    for (int ky = 0; ky < KS; ++ky) {
      for (int kx = 0; kx < KS; ++kx) {
        int at = conv_input_index(n, ci, oy, ox, ky, kx);
        if (at >= 0) sum += LOAD(x, at) * LOAD(p, conv_weight_index(co, ci, ky, kx));
      }
    }
  }
  OUT(y) = apply_act(sum + LOAD(p, B_OFF + co));)"};

const ElementKernel conv_input_gradient{
    "conv2d input gradient", {glsl::conv_indices}, {}, {{"dy"}, {"p"}}, {{"dx"}}, true, R"(
  int n = i / (CI * IHW);
  int r = i - n * (CI * IHW);
  int ci = r / IHW;
  r -= ci * IHW;
  int iy = r / IW;
  int ix = r - iy * IW;
  float sum = 0.0;
  for (int co = 0; co < CO; ++co) {
    for (int ky = 0; ky < KS; ++ky) {
      for (int kx = 0; kx < KS; ++kx) {
        int at = conv_output_index(n, co, iy, ix, ky, kx);
        if (at >= 0) sum += LOAD(dy, at) * LOAD(p, conv_weight_index(co, ci, ky, kx));
      }
    }
  }
  OUT(dx) = sum * XIN_GRAD;)"};

// One vertex per weight (co, ci, ky, kx): a sum over the batch and the output positions.
const ElementKernel conv_weight_gradient{
    "conv2d weight gradient", {glsl::conv_indices}, {}, {{"dy"}, {"x"}}, {{"g"}}, false, R"(
  int co = i / (CI * KK);
  int r = i - co * (CI * KK);
  int ci = r / KK;
  r -= ci * KK;
  int ky = r / KS;
  int kx = r - ky * KS;
  float sum = 0.0;
  for (int n = 0; n < BATCH; ++n) {
    for (int q = 0; q < OHW; ++q) {
      int oy = q / OW;
      int at = conv_input_index(n, ci, oy, q - oy * OW, ky, kx);
      if (at >= 0) sum += LOAD(dy, (n * CO + co) * OHW + q) * LOAD(x, at);
    }
  }
  OUT(g) = sum;)"};

const ElementKernel conv_bias_gradient{
    "conv2d bias gradient", {}, {}, {{"dy"}}, {{"g"}}, false, R"(
  float sum = 0.0;
  for (int n = 0; n < BATCH; ++n) {
    for (int q = 0; q < OHW; ++q) sum += LOAD(dy, (n * CO + i) * OHW + q);
  }
  OUT(g) = sum;)"};

const ElementKernel batchnorm_stats{"batchnorm statistics",
                                    {glsl::batchnorm_running},
                                    {},
                                    {{"x"}, {"p"}},
                                    {{"mean"}, {"inv_std"}, {"running_mean"}, {"running_var"}},
                                    false,
                                    R"(
  float total = 0.0;
  for (int n = 0; n < BATCH; ++n) {
    for (int q = 0; q < HW; ++q) total += LOAD(x, (n * C + i) * HW + q);
  }
  float m = total / float(BATCH * HW);
  float squares = 0.0;
  for (int n = 0; n < BATCH; ++n) {
    for (int q = 0; q < HW; ++q) {
      float d = LOAD(x, (n * C + i) * HW + q) - m;
      squares += d * d;
    }
  }
  float variance = squares / float(BATCH * HW);
  OUT(mean) = m;
  OUT(inv_std) = inversesqrt(variance + EPS);
  OUT(running_mean) = bn_running_mean(LOAD(p, MEAN_OFF + i), m);
  OUT(running_var) = bn_running_var(LOAD(p, VAR_OFF + i), variance);)"};

const ElementKernel batchnorm_sums{"batchnorm gradient sums",
                                   {},
                                   {},
                                   {{"x"}, {"dy"}, {"stats"}},
                                   {{"sum_dy"}, {"sum_dy_xhat"}},
                                   false,
                                   R"(
  float mean = LOAD(stats, i);
  float inv_std = LOAD(stats, C + i);
  float s = 0.0;
  float sx = 0.0;
  for (int n = 0; n < BATCH; ++n) {
    for (int q = 0; q < HW; ++q) {
      int at = (n * C + i) * HW + q;
      float d = LOAD(dy, at);
      s += d;
      sx += d * (LOAD(x, at) - mean) * inv_std;
    }
  }
  OUT(sum_dy) = s;
  OUT(sum_dy_xhat) = sx;)"};

const ElementKernel loss_rows{
    "loss", {glsl::logits}, {}, {{"z"}, {"labels"}}, {{"loss"}, {"correct"}, {"predicted"}}, false,
    R"(
  float largest;
  int best;
  float sum;
  logit_row(i, largest, best, sum);
  int label = int(LOAD(labels, i));
  OUT(loss) = logit_loss(i, label, largest, sum);
  OUT(correct) = best == label ? 1.0 : 0.0;
  OUT(predicted) = float(best);)"};

const ElementKernel loss_gradient{"loss gradient", {glsl::logits}, {}, {{"z"}, {"labels"}},
                                  {{"dz"}},        false,          R"(
  int row = i / CLASSES;
  float largest;
  int best;
  float sum;
  logit_row(row, largest, best, sum);
  OUT(dz) = logit_gradient(i, int(LOAD(labels, row)), largest, sum);)"};

const ElementKernel accumulate{"loss accumulation",
                               {"uniform int valid;\n"},
                               {},
                               {{"acc"}, {"loss"}, {"correct"}},
                               {{"total"}},
                               false,
                               R"(
  float sum = LOAD(acc, i);
  for (int r = 0; r < valid; ++r) sum += i == 0 ? LOAD(loss, r) : LOAD(correct, r);
  OUT(total) = sum;)"};

const std::string gather_pixels = std::string(R"(
uniform highp usampler2D pixels;
uniform highp usampler2D order;
out float x;
)") + glsl::batch_order + glsl::gather +
                                  R"(
void main() {
  uint s;
  x = gathered_pixel(gpgpu_index(), s);
}
)";

const std::string gather_labels = std::string(R"(
uniform highp usampler2D labels;
uniform highp usampler2D order;
out float label;
)") + glsl::batch_order + R"(
void main() { label = float(LOADU(labels, int(batch_sample(gpgpu_index())))); }
)";

const std::string sgd = std::string(R"(
uniform highp sampler2D p;
in float g;
#ifdef MOMENTUM
in float v;
out float v_next;
#endif
out float w_next;
)") + glsl::sgd + R"(
void main() {
  float velocity = 0.0;
#ifdef MOMENTUM
  velocity = v;
#endif
  w_next = sgd_step(fetch(p, OFFSET + gpgpu_index()), g, velocity);
#ifdef MOMENTUM
  v_next = velocity;
#endif
}
)";

const std::string adam = std::string(R"(
uniform highp sampler2D p;
in float g;
in float m;
in float v;
out float w_next;
out float m_next;
out float v_next;
)") + glsl::adam + R"(
void main() {
  float mi = m;
  float vi = v;
  w_next = adam_step(fetch(p, OFFSET + gpgpu_index()), g, mi, vi);
  m_next = mi;
  v_next = vi;
}
)";

}  // namespace gpgpu::nn::detail::tf
