// Internal: the transform-feedback backend's vertex shaders, in the style of gpgpu.js: one
// vertex per output element (gpgpu_index() = gl_VertexID), per-element inputs as `in`
// attributes from Buffers, everything read at other indices from textures (1-D arrays,
// gpgpu_fetch), results captured as `out` variables into Buffers. Shapes arrive as
// #defines. Loops stay below llvmpipe's 65535 iterations: a loop over a batch and one over
// positions are nested rather than fused.
#pragma once

namespace gpgpu::nn::detail::tf {

// Samplers every kernel may use; unused ones are dropped by the compiler.
inline constexpr const char* prelude = R"(
float fetch(highp sampler2D t, int i) { return gpgpu_fetch(t, i).r; }
)";

inline constexpr const char* dense_forward = R"(
uniform highp sampler2D x;       // (BATCH, NIN)
uniform highp sampler2D params;  // all parameters
out float y;
void main() {
  int i = gpgpu_index();
  int n = i / NOUT;
  int o = i - n * NOUT;
  float sum = 0.0;
  for (int k = 0; k < NIN; ++k) sum += fetch(x, n * NIN + k) * fetch(params, W_OFF + o * NIN + k);
  y = apply_act(sum + fetch(params, B_OFF + o));
}
)";

inline constexpr const char* dense_input_gradient = R"(
uniform highp sampler2D dy;      // (BATCH, NOUT)
uniform highp sampler2D params;
#if IN_ACT != 0
in float xin;                    // this element's input, for the input activation's derivative
#endif
out float dx;
void main() {
  int i = gpgpu_index();
  int n = i / NIN;
  int k = i - n * NIN;
  float sum = 0.0;
  for (int o = 0; o < NOUT; ++o) sum += fetch(dy, n * NOUT + o) * fetch(params, W_OFF + o * NIN + k);
#if IN_ACT != 0
  sum *= in_act_grad(xin);
#endif
  dx = sum;
}
)";

// dW[o][k] = sum_n dy[n][o] x[n][k]; with BIAS, db[o] = sum_n dy[n][o] (one vertex per o).
inline constexpr const char* dense_weight_gradient = R"(
uniform highp sampler2D dy;
uniform highp sampler2D x;
out float g;
void main() {
  int i = gpgpu_index();
#ifdef BIAS
  int o = i;
#else
  int o = i / NIN;
  int k = i - o * NIN;
#endif
  float sum = 0.0;
  for (int n = 0; n < BATCH; ++n) {
#ifdef BIAS
    sum += fetch(dy, n * NOUT + o);
#else
    sum += fetch(dy, n * NOUT + o) * fetch(x, n * NIN + k);
#endif
  }
  g = sum;
}
)";

inline constexpr const char* conv_forward = R"(
uniform highp sampler2D x;       // (BATCH, CI, IH, IW)
uniform highp sampler2D params;
out float y;
void main() {
  int i = gpgpu_index();
  int n = i / (CO * OH * OW);
  int r = i - n * (CO * OH * OW);
  int co = r / (OH * OW);
  r -= co * (OH * OW);
  int oy = r / OW;
  int ox = r - oy * OW;
  float sum = 0.0;
  for (int ci = 0; ci < CI; ++ci) {
    for (int ky = 0; ky < KS; ++ky) {
      int iy = oy * STRIDE + ky - PAD;
      if (iy < 0 || iy >= IH) continue;
      for (int kx = 0; kx < KS; ++kx) {
        int ix = ox * STRIDE + kx - PAD;
        if (ix < 0 || ix >= IW) continue;
        sum += fetch(x, ((n * CI + ci) * IH + iy) * IW + ix) *
               fetch(params, W_OFF + ((co * CI + ci) * KS + ky) * KS + kx);
      }
    }
  }
  y = apply_act(sum + fetch(params, B_OFF + co));
}
)";

inline constexpr const char* conv_input_gradient = R"(
uniform highp sampler2D dy;      // (BATCH, CO, OH, OW)
uniform highp sampler2D params;
#if IN_ACT != 0
in float xin;
#endif
out float dx;
void main() {
  int i = gpgpu_index();
  int n = i / (CI * IH * IW);
  int r = i - n * (CI * IH * IW);
  int ci = r / (IH * IW);
  r -= ci * (IH * IW);
  int iy = r / IW;
  int ix = r - iy * IW;
  float sum = 0.0;
  for (int co = 0; co < CO; ++co) {
    for (int ky = 0; ky < KS; ++ky) {
      int ty = iy + PAD - ky;
      if (ty < 0 || ty % STRIDE != 0 || ty / STRIDE >= OH) continue;
      for (int kx = 0; kx < KS; ++kx) {
        int tx = ix + PAD - kx;
        if (tx < 0 || tx % STRIDE != 0 || tx / STRIDE >= OW) continue;
        sum += fetch(dy, ((n * CO + co) * OH + ty / STRIDE) * OW + tx / STRIDE) *
               fetch(params, W_OFF + ((co * CI + ci) * KS + ky) * KS + kx);
      }
    }
  }
#if IN_ACT != 0
  sum *= in_act_grad(xin);
#endif
  dx = sum;
}
)";

// One vertex per weight (co, ci, ky, kx), or with BIAS per filter: sums over the batch and
// the output positions (two nested loops).
inline constexpr const char* conv_weight_gradient = R"(
uniform highp sampler2D dy;
uniform highp sampler2D x;
out float g;
void main() {
  int i = gpgpu_index();
#ifdef BIAS
  int co = i;
#else
  int co = i / (CI * KS * KS);
  int r = i - co * (CI * KS * KS);
  int ci = r / (KS * KS);
  r -= ci * (KS * KS);
  int ky = r / KS;
  int kx = r - ky * KS;
#endif
  float sum = 0.0;
  for (int n = 0; n < BATCH; ++n) {
    for (int p = 0; p < OH * OW; ++p) {
      float d = fetch(dy, (n * CO + co) * (OH * OW) + p);
#ifdef BIAS
      sum += d;
#else
      int oy = p / OW;
      int ox = p - oy * OW;
      int iy = oy * STRIDE + ky - PAD;
      int ix = ox * STRIDE + kx - PAD;
      if (iy >= 0 && iy < IH && ix >= 0 && ix < IW) sum += d * fetch(x, ((n * CI + ci) * IH + iy) * IW + ix);
#endif
    }
  }
  g = sum;
}
)";

// Pooling over SIZE x SIZE windows; max pooling in training also captures the index (as a
// float, exact below 2^24) of the maximum within the input plane.
inline constexpr const char* pool_forward = R"(
uniform highp sampler2D x;
out float y;
#if defined(MAX_POOL) && defined(TRAIN)
out float arg;
#endif
void main() {
  int i = gpgpu_index();
  int plane = i / (OH * OW);
  int r = i - plane * (OH * OW);
  int oy = r / OW;
  int ox = r - oy * OW;
  int base = plane * (IH * IW);
#ifdef MAX_POOL
  int best_at = (oy * STRIDE) * IW + ox * STRIDE;
  float best = fetch(x, base + best_at);
  for (int ky = 0; ky < SIZE; ++ky) {
    for (int kx = 0; kx < SIZE; ++kx) {
      int at = (oy * STRIDE + ky) * IW + ox * STRIDE + kx;
      float v = fetch(x, base + at);
      if (v > best) {
        best = v;
        best_at = at;
      }
    }
  }
  y = best;
#ifdef TRAIN
  arg = float(best_at);
#endif
#else
  float sum = 0.0;
  for (int ky = 0; ky < SIZE; ++ky) {
    for (int kx = 0; kx < SIZE; ++kx) sum += fetch(x, base + (oy * STRIDE + ky) * IW + ox * STRIDE + kx);
  }
  y = sum * (1.0 / float(SIZE * SIZE));
#endif
}
)";

inline constexpr const char* pool_backward = R"(
uniform highp sampler2D dy;
#ifdef MAX_POOL
uniform highp sampler2D arg;
#endif
#if IN_ACT != 0
in float xin;
#endif
out float dx;
void main() {
  int i = gpgpu_index();
  int plane = i / (IH * IW);
  int r = i - plane * (IH * IW);
  int iy = r / IW;
  int ix = r - iy * IW;
  int oy0 = max(0, (iy - SIZE + STRIDE) / STRIDE);
  int oy1 = min(OH - 1, iy / STRIDE);
  int ox0 = max(0, (ix - SIZE + STRIDE) / STRIDE);
  int ox1 = min(OW - 1, ix / STRIDE);
  float sum = 0.0;
  for (int oy = oy0; oy <= oy1; ++oy) {
    for (int ox = ox0; ox <= ox1; ++ox) {
      int o = plane * (OH * OW) + oy * OW + ox;
#ifdef MAX_POOL
      if (int(fetch(arg, o)) == r) sum += fetch(dy, o);
#else
      sum += fetch(dy, o);
#endif
    }
  }
#ifndef MAX_POOL
  sum *= 1.0 / float(SIZE * SIZE);
#endif
#if IN_ACT != 0
  sum *= in_act_grad(xin);
#endif
  dx = sum;
}
)";

inline constexpr const char* activation_forward = R"(
in float x;
out float y;
void main() { y = apply_act(x); }
)";

// dx = dy times the input activation's derivative (the consumer already applied f').
inline constexpr const char* pass_backward = R"(
in float dy;
#if IN_ACT != 0
in float xin;
#endif
out float dx;
void main() {
#if IN_ACT != 0
  dx = dy * in_act_grad(xin);
#else
  dx = dy;
#endif
}
)";

inline constexpr const char* dropout_forward = R"(
in float x;
out float y;
uniform uint seed;
void main() {
  uint i = uint(gpgpu_index());
  bool keep = float(pcg_hash(i ^ pcg_hash(seed)) >> 8) * (1.0 / 16777216.0) >= RATE;
  y = keep ? x * SCALE : 0.0;
}
)";

inline constexpr const char* dropout_backward = R"(
in float dy;
#if IN_ACT != 0
in float xin;
#endif
out float dx;
uniform uint seed;
void main() {
  uint i = uint(gpgpu_index());
  bool keep = float(pcg_hash(i ^ pcg_hash(seed)) >> 8) * (1.0 / 16777216.0) >= RATE;
  float g = keep ? dy * SCALE : 0.0;
#if IN_ACT != 0
  g *= in_act_grad(xin);
#endif
  dx = g;
}
)";

inline constexpr const char* softmax_forward = R"(
uniform highp sampler2D x;
out float y;
void main() {
  int i = gpgpu_index();
  int base = (i / F) * F;
  float largest = fetch(x, base);
  for (int j = 1; j < F; ++j) largest = max(largest, fetch(x, base + j));
  float sum = 0.0;
  for (int j = 0; j < F; ++j) sum += exp(fetch(x, base + j) - largest);
  y = exp(fetch(x, i) - largest) / sum;
}
)";

inline constexpr const char* softmax_backward = R"(
uniform highp sampler2D y;
uniform highp sampler2D dy;
#if IN_ACT != 0
in float xin;
#endif
out float dx;
void main() {
  int i = gpgpu_index();
  int base = (i / F) * F;
  float dot_dy_y = 0.0;
  for (int j = 0; j < F; ++j) dot_dy_y += fetch(dy, base + j) * fetch(y, base + j);
  float g = fetch(y, i) * (fetch(dy, i) - dot_dy_y);
#if IN_ACT != 0
  g *= in_act_grad(xin);
#endif
  dx = g;
}
)";

// One vertex per channel: mean and 1/sqrt(var + EPS) of the batch (two passes), and the
// updated running statistics (read from the parameter texture).
inline constexpr const char* batchnorm_stats = R"(
uniform highp sampler2D x;
uniform highp sampler2D params;
out float mean;
out float inv_std;
out float running_mean;
out float running_var;
void main() {
  int c = gpgpu_index();
  float total = 0.0;
  for (int n = 0; n < BATCH; ++n) {
    for (int p = 0; p < HW; ++p) total += fetch(x, (n * C + c) * HW + p);
  }
  float m = total / float(BATCH * HW);
  float squares = 0.0;
  for (int n = 0; n < BATCH; ++n) {
    for (int p = 0; p < HW; ++p) {
      float d = fetch(x, (n * C + c) * HW + p) - m;
      squares += d * d;
    }
  }
  float variance = squares / float(BATCH * HW);
  mean = m;
  inv_std = inversesqrt(variance + EPS);
  running_mean = (1.0 - MOMENTUM) * fetch(params, MEAN_OFF + c) + MOMENTUM * m;
  running_var = (1.0 - MOMENTUM) * fetch(params, VAR_OFF + c) +
                MOMENTUM * variance * (float(BATCH * HW) / float(max(BATCH * HW - 1, 1)));
}
)";

inline constexpr const char* batchnorm_normalize = R"(
in float x;
uniform highp sampler2D params;
#ifdef TRAIN
uniform highp sampler2D stats;   // mean[C] then inv_std[C]
#endif
out float y;
void main() {
  int c = (gpgpu_index() / HW) % C;
#ifdef TRAIN
  float mean = fetch(stats, c);
  float inv_std = fetch(stats, C + c);
#else
  float mean = fetch(params, MEAN_OFF + c);
  float inv_std = inversesqrt(fetch(params, VAR_OFF + c) + EPS);
#endif
  y = apply_act((x - mean) * inv_std * fetch(params, GAMMA_OFF + c) + fetch(params, BETA_OFF + c));
}
)";

// One vertex per channel: sum(dy) (beta's gradient) and sum(dy xhat) (gamma's).
inline constexpr const char* batchnorm_sums = R"(
uniform highp sampler2D x;
uniform highp sampler2D dy;
uniform highp sampler2D stats;
out float sum_dy;
out float sum_dy_xhat;
void main() {
  int c = gpgpu_index();
  float mean = fetch(stats, c);
  float inv_std = fetch(stats, C + c);
  float s = 0.0;
  float sx = 0.0;
  for (int n = 0; n < BATCH; ++n) {
    for (int p = 0; p < HW; ++p) {
      int at = (n * C + c) * HW + p;
      float d = fetch(dy, at);
      s += d;
      sx += d * (fetch(x, at) - mean) * inv_std;
    }
  }
  sum_dy = s;
  sum_dy_xhat = sx;
}
)";

inline constexpr const char* batchnorm_input_gradient = R"(
in float x;
in float dy;
uniform highp sampler2D params;
uniform highp sampler2D stats;
uniform highp sampler2D sums;    // sum_dy[C] then sum_dy_xhat[C]
out float dx;
const float N = float(BATCH * HW);
void main() {
  int c = (gpgpu_index() / HW) % C;
  float inv_std = fetch(stats, C + c);
  float xhat = (x - fetch(stats, c)) * inv_std;
  float g = fetch(params, GAMMA_OFF + c) * inv_std / N * (N * dy - fetch(sums, c) - xhat * fetch(sums, C + c));
#if IN_ACT != 0
  g *= in_act_grad(x);
#endif
  dx = g;
}
)";

// The batch: one vertex per input value; sample order[first + n] from the packed pixels.
inline constexpr const char* gather_pixels = R"(
uniform highp usampler2D pixels;
uniform highp usampler2D order;
uniform uint first;
uniform uint valid;
uniform uint seed;
uniform float mean;
uniform float inv_std;
out float x;
const int HW = H * W;
const int CHW = C * HW;
void main() {
  int i = gpgpu_index();
  int n = i / CHW;
  int r = i - n * CHW;
  int c = r / HW;
  int yx = r - c * HW;
  int yy = yx / W;
  int xx = yx - yy * W;
  uint s = gpgpu_fetch(order, int(first + min(uint(n), valid - 1u))).r;
  float v = 0.0;
  if (augmented_pixel(seed, s, yy, xx)) {
    uint j = s * uint(CHW) + uint(c * HW + yy * W + xx);
    v = float((gpgpu_fetch(pixels, int(j >> 2)).r >> ((j & 3u) * 8u)) & 255u);
  }
  x = (v * (1.0 / 255.0) - mean) * inv_std;
}
)";

inline constexpr const char* gather_labels = R"(
uniform highp usampler2D labels;
uniform highp usampler2D order;
uniform uint first;
uniform uint valid;
out float label;
void main() {
  uint n = uint(gpgpu_index());
  label = float(gpgpu_fetch(labels, int(gpgpu_fetch(order, int(first + min(n, valid - 1u))).r)).r);
}
)";

// Per row: loss, whether the prediction is right, the prediction.
inline constexpr const char* loss_rows = R"(
uniform highp sampler2D z;
uniform highp sampler2D labels;
out float loss;
out float correct;
out float predicted;
void main() {
  int row = gpgpu_index();
  int base = row * CLASSES;
  float largest = fetch(z, base);
  int best = 0;
  for (int j = 1; j < CLASSES; ++j) {
    float v = fetch(z, base + j);
    if (v > largest) {
      largest = v;
      best = j;
    }
  }
  float sum = 0.0;
  for (int j = 0; j < CLASSES; ++j) sum += exp(fetch(z, base + j) - largest);
  int label = int(fetch(labels, row));
  loss = log(sum) - (fetch(z, base + label) - largest);
  correct = best == label ? 1.0 : 0.0;
  predicted = float(best);
}
)";

// dL/dz = (softmax - onehot) / BATCH, times the output activation's derivative.
inline constexpr const char* loss_gradient = R"(
uniform highp sampler2D z;
uniform highp sampler2D labels;
out float dz;
void main() {
  int i = gpgpu_index();
  int row = i / CLASSES;
  int j = i - row * CLASSES;
  int base = row * CLASSES;
  float largest = fetch(z, base);
  for (int k = 1; k < CLASSES; ++k) largest = max(largest, fetch(z, base + k));
  float sum = 0.0;
  for (int k = 0; k < CLASSES; ++k) sum += exp(fetch(z, base + k) - largest);
  float g = (exp(fetch(z, i) - largest) / sum - (j == int(fetch(labels, row)) ? 1.0 : 0.0)) / float(BATCH);
  dz = g * act_grad_of_output(fetch(z, i));
}
)";

// Two vertices: the running loss sum (vertex 0) and correct count (vertex 1) plus this
// batch's first `valid` rows.
inline constexpr const char* accumulate = R"(
uniform highp sampler2D acc;
uniform highp sampler2D loss;
uniform highp sampler2D correct;
uniform int valid;
out float total;
void main() {
  int which = gpgpu_index();
  float sum = fetch(acc, which);
  for (int r = 0; r < valid; ++r) sum += which == 0 ? fetch(loss, r) : fetch(correct, r);
  total = sum;
}
)";

// The optimizers, one vertex per parameter of one array.
inline constexpr const char* sgd = R"(
uniform highp sampler2D params;
in float g;
#ifdef MOMENTUM
in float v;
out float v_next;
uniform float momentum;
#endif
uniform float lr;
uniform float weight_decay;
out float w_next;
void main() {
  float w = fetch(params, OFFSET + gpgpu_index());
  float step = g + weight_decay * w;
#ifdef MOMENTUM
  step = momentum * v + step;
  v_next = step;
#endif
  w_next = w - lr * step;
}
)";

inline constexpr const char* adam = R"(
uniform highp sampler2D params;
in float g;
in float m;
in float v;
uniform float lr;
uniform float weight_decay;
uniform float beta1;
uniform float beta2;
uniform float epsilon;
uniform float correction1;
uniform float correction2;
out float w_next;
out float m_next;
out float v_next;
void main() {
  float w = fetch(params, OFFSET + gpgpu_index());
  float grad = g + weight_decay * w;
  float mi = beta1 * m + (1.0 - beta1) * grad;
  float vi = beta2 * v + (1.0 - beta2) * grad * grad;
  m_next = mi;
  v_next = vi;
  w_next = w - lr * (mi * correction1) / (sqrt(vi * correction2) + epsilon);
}
)";

}  // namespace gpgpu::nn::detail::tf
