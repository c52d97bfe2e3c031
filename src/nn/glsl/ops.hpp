// Internal: the arithmetic of the GPU backends' kernels, written once. Each snippet is GLSL
// functions over the stage's #defines (glsl/stage_defines.hpp) that read arrays through
//   LOAD(a, i)    float a[i]  (compute: a storage buffer; transform feedback: a texture)
//   LOADU(a, i)   uint a[i]
// which each path's entry points define (glsl/element_kernel.cpp): the compute shaders and
// the vertex shaders differ only in how they are launched and how they read and write, not
// in what they compute. A kernel includes the snippets it needs (their functions use
// defines that only their stages have).
#pragma once

namespace gpgpu::nn::detail::glsl {

// Pooling over SIZE_Y x SIZE_X windows with stride STRIDE on planes IH x IW -> OH x OW; the
// window of output (oy, ox) starts at row oy STRIDE - PAD_T, column ox STRIDE - PAD_L. With
// CLIPPED (padding, or a partial last window) the positions outside the plane are skipped:
// a maximum is over the input values a window covers; a mean divides by pool_area, the
// positions of the window within the padded plane (COUNT_PAD) or within the plane
// (PoolGeometry::area). pool_output: output o's value and, for max pooling, the index
// within its plane of the first largest input. pool_input_gradient: dL/d(input i), summed
// over the windows that hold it: oy in [ceil((iy + PAD_T - SIZE_Y + 1) / STRIDE),
// floor((iy + PAD_T) / STRIDE)] within [0, OH), likewise ox (arg: the forward pass's
// indices, as floats). Kernels include pooling_area before either.
inline constexpr const char* pooling_area = R"(
float pool_area(int oy, int ox) {
#ifdef CLIPPED
  int y0 = oy * STRIDE;
  int x0 = ox * STRIDE;
#ifdef COUNT_PAD
  int h = min(y0 + SIZE_Y, PAD_T + IH + PAD_B) - y0;
  int w = min(x0 + SIZE_X, PAD_L + IW + PAD_R) - x0;
#else
  int h = min(y0 + SIZE_Y, PAD_T + IH) - max(y0, PAD_T);
  int w = min(x0 + SIZE_X, PAD_L + IW) - max(x0, PAD_L);
#endif
  return float(h * w);
#else
  return float(SIZE_Y * SIZE_X);
#endif
}
)";
inline constexpr const char* pooling = R"(
float pool_output(int o, out int best_at) {
  int plane = o / (OH * OW);
  int r = o - plane * (OH * OW);
  int oy = r / OW;
  int ox = r - oy * OW;
  int base = plane * (IH * IW);
  int y0 = oy * STRIDE - PAD_T;
  int x0 = ox * STRIDE - PAD_L;
  best_at = -1;
  float best = 0.0;
  float sum = 0.0;
  for (int ky = 0; ky < SIZE_Y; ++ky) {
    int iy = y0 + ky;
#ifdef CLIPPED
    if (iy < 0 || iy >= IH) continue;
#endif
    for (int kx = 0; kx < SIZE_X; ++kx) {
      int ix = x0 + kx;
#ifdef CLIPPED
      if (ix < 0 || ix >= IW) continue;
#endif
      int at = iy * IW + ix;
      float v = LOAD(x, base + at);
#ifdef MAX_POOL
      if (best_at < 0 || v > best) {
        best = v;
        best_at = at;
      }
#else
      sum += v;
#endif
    }
  }
#ifdef MAX_POOL
  return best;
#else
  return sum * (1.0 / pool_area(oy, ox));
#endif
}
)";
inline constexpr const char* pooling_gradient = R"(
float pool_input_gradient(int i) {
  int plane = i / (IH * IW);
  int r = i - plane * (IH * IW);
  int iy = r / IW;
  int ix = r - iy * IW;
  int oy0 = max(0, (iy + PAD_T - SIZE_Y + STRIDE) / STRIDE);
  int oy1 = min(OH - 1, (iy + PAD_T) / STRIDE);
  int ox0 = max(0, (ix + PAD_L - SIZE_X + STRIDE) / STRIDE);
  int ox1 = min(OW - 1, (ix + PAD_L) / STRIDE);
  float sum = 0.0;
  for (int oy = oy0; oy <= oy1; ++oy) {
    for (int ox = ox0; ox <= ox1; ++ox) {
      int o = plane * (OH * OW) + oy * OW + ox;
#ifdef MAX_POOL
      if (int(LOAD(arg, o)) == r) sum += LOAD(dy, o);
#else
      sum += LOAD(dy, o) * (1.0 / pool_area(oy, ox));
#endif
    }
  }
  return sum;
}
)";

// Softmax over rows of F: element i of softmax(x), and of dL/dx = y (dy - <dy, y>).
inline constexpr const char* softmax = R"(
float softmax_at(int i) {
  int base = (i / F) * F;
  float largest = LOAD(x, base);
  for (int j = 1; j < F; ++j) largest = max(largest, LOAD(x, base + j));
  float sum = 0.0;
  for (int j = 0; j < F; ++j) sum += exp(LOAD(x, base + j) - largest);
  return exp(LOAD(x, i) - largest) / sum;
}
)";
inline constexpr const char* softmax_gradient = R"(
float softmax_gradient_at(int i) {
  int base = (i / F) * F;
  float dot_dy_y = 0.0;
  for (int j = 0; j < F; ++j) dot_dy_y += LOAD(dy, base + j) * LOAD(y, base + j);
  return LOAD(y, i) * (LOAD(dy, i) - dot_dy_y);
}
)";

// Dropout: element i of step `seed` is kept when its hash, as a fraction of 2^24, is at
// least RATE (plan/hash.hpp's dropout_keeps); kept values are scaled by SCALE.
inline constexpr const char* dropout = R"(
uniform uint seed;
bool dropout_keeps(int i) {
  return float(pcg_hash(uint(i) ^ pcg_hash(seed)) >> 8) * (1.0 / 16777216.0) >= RATE;
}
)";

// Batch normalisation of channel (i / HW) % C, with the parameters p at GAMMA_OFF, ...;
// stats = mean[C] then 1/sqrt(var + EPS)[C] of the batch (training), sums = sum(dy)[C] then
// sum(dy xhat)[C]. In evaluation the running statistics normalise. With BN_TABLE (compute
// shaders on devices that bind fewer than six storage buffers) the input gradient reads
// gamma and the sums from stats as well, a table of 5 C: mean, 1/sqrt(var + EPS), gamma,
// sum(dy), sum(dy xhat).
inline constexpr const char* batchnorm_output = R"(
int bn_channel(int i) { return (i / HW) % C; }
float bn_normalized(int i, float v) {
  int c = bn_channel(i);
#ifdef TRAIN
  float mean = LOAD(stats, c);
  float inv_std = LOAD(stats, C + c);
#else
  float mean = LOAD(p, MEAN_OFF + c);
  float inv_std = inversesqrt(LOAD(p, VAR_OFF + c) + EPS);
#endif
  return apply_act((v - mean) * inv_std * LOAD(p, GAMMA_OFF + c) + LOAD(p, BETA_OFF + c));
}
)";
inline constexpr const char* batchnorm_gradient = R"(
// dx = gamma inv_std / N (N dy - sum(dy) - xhat sum(dy xhat)), N = BATCH HW, times the
// input activation's derivative.
#ifdef BN_TABLE
#define BN_GAMMA(c) LOAD(stats, 2 * C + c)
#define BN_SUM_DY(c) LOAD(stats, 3 * C + c)
#define BN_SUM_DY_XHAT(c) LOAD(stats, 4 * C + c)
#else
#define BN_GAMMA(c) LOAD(p, GAMMA_OFF + c)
#define BN_SUM_DY(c) LOAD(sums, c)
#define BN_SUM_DY_XHAT(c) LOAD(sums, C + c)
#endif
float bn_input_gradient(int i, float v, float dy) {
  int c = (i / HW) % C;
  const float N = float(BATCH * HW);
  float inv_std = LOAD(stats, C + c);
  float xhat = (v - LOAD(stats, c)) * inv_std;
  return BN_GAMMA(c) * inv_std / N * (N * dy - BN_SUM_DY(c) - xhat * BN_SUM_DY_XHAT(c)) *
         in_act_grad(v);
}
)";
// The running statistics after a batch (PyTorch's: the variance unbiased).
inline constexpr const char* batchnorm_running = R"(
float bn_running_mean(float old, float batch_mean) {
  return (1.0 - MOMENTUM) * old + MOMENTUM * batch_mean;
}
float bn_running_var(float old, float batch_variance) {
  return (1.0 - MOMENTUM) * old +
         MOMENTUM * batch_variance * (float(BATCH * HW) / float(max(BATCH * HW - 1, 1)));
}
)";

// Softmax cross-entropy over rows of CLASSES logits z: a row's largest logit, the first
// index holding it and sum_j exp(z_j - largest); a row's loss; element i of the gradient
// (softmax - onehot) / BATCH times the output activation's derivative.
inline constexpr const char* logits = R"(
void logit_row(int row, out float largest, out int best, out float sum) {
  int base = row * CLASSES;
  largest = LOAD(z, base);
  best = 0;
  for (int j = 1; j < CLASSES; ++j) {
    float v = LOAD(z, base + j);
    if (v > largest) {
      largest = v;
      best = j;
    }
  }
  sum = 0.0;
  for (int j = 0; j < CLASSES; ++j) sum += exp(LOAD(z, base + j) - largest);
}
float logit_loss(int row, int label, float largest, float sum) {
  return log(sum) - (LOAD(z, row * CLASSES + label) - largest);
}
float logit_gradient(int i, int label, float largest, float sum) {
  float onehot = i - (i / CLASSES) * CLASSES == label ? 1.0 : 0.0;
  float g = (exp(LOAD(z, i) - largest) / sum - onehot) * (1.0 / float(BATCH));
  return g * act_grad_of_output(LOAD(z, i));
}
)";

// Convolution indices (NCHW arrays, square kernels, PAD_T rows of zeros above and PAD_L
// columns left): the input index that tap (ci, ky, kx) of output position (img, oy, ox)
// reads, or -1 in the zero padding (im2col); the output index whose tap (co, ky, kx) reads
// input (img, iy, ix), or -1 when none does: oy STRIDE = iy + PAD_T - ky must have a whole solution
// inside the output (col2im); a weight's index.
inline constexpr const char* conv_indices = R"(
int conv_input_index(int img, int ci, int oy, int ox, int ky, int kx) {
  int iy = oy * STRIDE + ky - PAD_T;
  int ix = ox * STRIDE + kx - PAD_L;
  if (iy < 0 || iy >= IH || ix < 0 || ix >= IW) return -1;
  return ((img * CI + ci) * IH + iy) * IW + ix;
}
int conv_output_index(int img, int co, int iy, int ix, int ky, int kx) {
  int ty = iy + PAD_T - ky;
  int tx = ix + PAD_L - kx;
  if (ty < 0 || tx < 0) return -1;
#if STRIDE > 1
  if (ty % STRIDE != 0 || tx % STRIDE != 0) return -1;
  ty /= STRIDE;
  tx /= STRIDE;
#endif
  if (ty >= OH || tx >= OW) return -1;
  return ((img * CO + co) * OH + ty) * OW + tx;
}
int conv_weight_index(int co, int ci, int ky, int kx) {
  return W_OFF + ((co * CI + ci) * KS + ky) * KS + kx;
}
)";

// The batch gather. batch_sample: sample n of the batch is order[first + n] (rows past
// `valid` repeat the last valid one). gathered_pixel: element i of (BATCH, C, H, W) is
// pixel (c, yy, xx) of its sample, flipped and shifted per sample when augmenting
// (augmentation_glsl), as (p / 255 - mean) * inv_std; pixels are packed four bytes to a
// uint.
inline constexpr const char* batch_order = R"(
uniform uint first;
uniform uint valid;
uint batch_sample(int n) { return LOADU(order, int(first + min(uint(n), valid - 1u))); }
)";
inline constexpr const char* gather = R"(
uniform uint seed;
uniform float mean;
uniform float inv_std;
const int HW = H * W;
const int CHW = C * HW;
float gathered_pixel(int i, out uint s) {
  int n = i / CHW;
  int r = i - n * CHW;
  int c = r / HW;
  int yx = r - c * HW;
  int yy = yx / W;
  int xx = yx - yy * W;
  s = batch_sample(n);
  float v = 0.0;
  if (augmented_pixel(seed, s, yy, xx)) {
    uint j = s * uint(CHW) + uint(c * HW + yy * W + xx);
    v = float((LOADU(pixels, int(j >> 2)) >> ((j & 3u) * 8u)) & 255u);
  }
  return (v * (1.0 / 255.0) - mean) * inv_std;
}
)";

// The optimizers (optimizers.hpp), one parameter w with gradient g: the new value, the
// moments updated in place.
inline constexpr const char* sgd = R"(
uniform float lr;
uniform float weight_decay;
#ifdef MOMENTUM
uniform float momentum;
#endif
float sgd_step(float w, float g, inout float v) {
  float step = g + weight_decay * w;
#ifdef MOMENTUM
  step = momentum * v + step;
  v = step;
#endif
  return w - lr * step;
}
)";
inline constexpr const char* adam = R"(
uniform float lr;
uniform float weight_decay;
uniform float beta1;
uniform float beta2;
uniform float epsilon;
uniform float correction1;  // 1 / (1 - beta1^t)
uniform float correction2;  // 1 / (1 - beta2^t)
float adam_step(float w, float g, inout float m, inout float v) {
  float grad = g + weight_decay * w;
  m = beta1 * m + (1.0 - beta1) * grad;
  v = beta2 * v + (1.0 - beta2) * grad * grad;
  return w - lr * (m * correction1) / (sqrt(v * correction2) + epsilon);
}
)";

}  // namespace gpgpu::nn::detail::glsl
