// Internal: the compute backend's GLSL besides the GEMMs — data gathering, pooling,
// activations, dropout, batch normalisation, softmax, the loss and the optimizers. Shapes
// arrive as #defines (so divisions by them become multiplications), run-time values as
// uniforms. Element-wise kernels run one invocation per element over gpgpu_index();
// reductions over a batch or channel use one work group of 256 and nested loops (at most
// 32768 iterations each, for llvmpipe's 65535-iteration limit).
#pragma once

namespace gpgpu::nn::detail::kernels {

// dst = src (scaled by the derivative of the output's activation when ACT != 0: turns
// dL/d(output) into dL/d(pre-activation)).
inline constexpr const char* copy = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Source { float src[]; };
layout(std430, binding = 1) writeonly buffer Destination { float dst[]; };
#if ACT != 0
layout(std430, binding = 2) readonly buffer Output { float y[]; };
#endif
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
#if ACT != 0
  dst[i] = src[i] * act_grad_of_output(y[i]);
#else
  dst[i] = src[i];
#endif
}
)";

// x[n][c][y][x] from the packed bytes of sample order[first + n] (rows past `valid` repeat
// the last valid sample), flipped and shifted per sample when augmenting, normalised; the
// first invocation of each sample also copies its label.
inline constexpr const char* gather = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Pixels { uint pixels[]; };
layout(std430, binding = 1) readonly buffer Labels { uint labels[]; };
layout(std430, binding = 2) readonly buffer Order { uint order[]; };
layout(std430, binding = 3) writeonly buffer Input { float x[]; };
layout(std430, binding = 4) writeonly buffer BatchLabels { uint batch_labels[]; };
uniform uint first;
uniform uint valid;
uniform uint seed;
uniform float mean;
uniform float inv_std;
const int HW = H * W;
const int CHW = C * HW;
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  int n = int(i) / CHW;
  int r = int(i) - n * CHW;
  int c = r / HW;
  int yx = r - c * HW;
  int yy = yx / W;
  int xx = yx - yy * W;
  uint s = order[first + min(uint(n), valid - 1u)];
  if (r == 0) batch_labels[n] = labels[s];
  float v = 0.0;
  if (augmented_pixel(seed, s, yy, xx)) {
    uint j = s * uint(CHW) + uint(c * HW + yy * W + xx);
    v = float((pixels[j >> 2] >> ((j & 3u) * 8u)) & 255u);
  }
  x[i] = (v * (1.0 / 255.0) - mean) * inv_std;
}
)";

// Pooling over SIZE x SIZE windows with stride STRIDE, no padding.
inline constexpr const char* pool_forward = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Input { float x[]; };
layout(std430, binding = 1) writeonly buffer Output { float y[]; };
#if defined(MAX_POOL) && defined(TRAIN)
layout(std430, binding = 2) writeonly buffer Argmax { int arg[]; };
#endif
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  int plane = int(i) / (OH * OW);
  int r = int(i) - plane * (OH * OW);
  int oy = r / OW;
  int ox = r - oy * OW;
  int base = plane * (IH * IW);
#ifdef MAX_POOL
  int best_at = (oy * STRIDE) * IW + ox * STRIDE;
  float best = x[base + best_at];
  for (int ky = 0; ky < SIZE; ++ky) {
    for (int kx = 0; kx < SIZE; ++kx) {
      int at = (oy * STRIDE + ky) * IW + ox * STRIDE + kx;
      float v = x[base + at];
      if (v > best) {
        best = v;
        best_at = at;
      }
    }
  }
  y[i] = best;
#ifdef TRAIN
  arg[i] = best_at;
#endif
#else
  float sum = 0.0;
  for (int ky = 0; ky < SIZE; ++ky) {
    for (int kx = 0; kx < SIZE; ++kx) sum += x[base + (oy * STRIDE + ky) * IW + ox * STRIDE + kx];
  }
  y[i] = sum * (1.0 / float(SIZE * SIZE));
#endif
}
)";

// dx for each input element: the windows that contain it, oy in [ceil((iy - SIZE + 1) /
// STRIDE), floor(iy / STRIDE)] within [0, OH), likewise ox.
inline constexpr const char* pool_backward = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer OutputGradient { float dy[]; };
layout(std430, binding = 1) writeonly buffer InputGradient { float dx[]; };
#ifdef MAX_POOL
layout(std430, binding = 2) readonly buffer Argmax { int arg[]; };
#endif
#if IN_ACT != 0
layout(std430, binding = 3) readonly buffer Input { float xin[]; };
#endif
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  int plane = int(i) / (IH * IW);
  int r = int(i) - plane * (IH * IW);
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
      if (arg[o] == r) sum += dy[o];
#else
      sum += dy[o];
#endif
    }
  }
#ifndef MAX_POOL
  sum *= 1.0 / float(SIZE * SIZE);
#endif
#if IN_ACT != 0
  sum *= in_act_grad(xin[i]);
#endif
  dx[i] = sum;
}
)";

// A standalone activation: y = f(x). Its backward is dy (already with f' applied by the
// consumer, see stages.cpp) times the input activation's derivative.
inline constexpr const char* activation_forward = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Input { float x[]; };
layout(std430, binding = 1) writeonly buffer Output { float y[]; };
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  y[i] = apply_act(x[i]);
}
)";

inline constexpr const char* pass_backward = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer OutputGradient { float dy[]; };
layout(std430, binding = 1) writeonly buffer InputGradient { float dx[]; };
#if IN_ACT != 0
layout(std430, binding = 2) readonly buffer Input { float xin[]; };
#endif
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
#if IN_ACT != 0
  dx[i] = dy[i] * in_act_grad(xin[i]);
#else
  dx[i] = dy[i];
#endif
}
)";

// Dropout: element i of step `seed` is kept when its hash, as a fraction of 2^24, is at
// least RATE; kept values are scaled by SCALE = 1 / (1 - RATE). Backward redraws the mask.
inline constexpr const char* dropout_forward = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Input { float x[]; };
layout(std430, binding = 1) writeonly buffer Output { float y[]; };
uniform uint seed;
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  bool keep = float(pcg_hash(i ^ pcg_hash(seed)) >> 8) * (1.0 / 16777216.0) >= RATE;
  y[i] = keep ? x[i] * SCALE : 0.0;
}
)";

inline constexpr const char* dropout_backward = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer OutputGradient { float dy[]; };
layout(std430, binding = 1) writeonly buffer InputGradient { float dx[]; };
#if IN_ACT != 0
layout(std430, binding = 2) readonly buffer Input { float xin[]; };
#endif
uniform uint seed;
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  bool keep = float(pcg_hash(i ^ pcg_hash(seed)) >> 8) * (1.0 / 16777216.0) >= RATE;
  float g = keep ? dy[i] * SCALE : 0.0;
#if IN_ACT != 0
  g *= in_act_grad(xin[i]);
#endif
  dx[i] = g;
}
)";

// Row-wise softmax over F features, one invocation per row.
inline constexpr const char* softmax_forward = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Input { float x[]; };
layout(std430, binding = 1) writeonly buffer Output { float y[]; };
void main() {
  uint row = gpgpu_index();
  if (row >= gpgpu_count) return;
  int base = int(row) * F;
  float largest = x[base];
  for (int j = 1; j < F; ++j) largest = max(largest, x[base + j]);
  float sum = 0.0;
  for (int j = 0; j < F; ++j) sum += exp(x[base + j] - largest);
  for (int j = 0; j < F; ++j) y[base + j] = exp(x[base + j] - largest) / sum;
}
)";

inline constexpr const char* softmax_backward = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Output { float y[]; };
layout(std430, binding = 1) readonly buffer OutputGradient { float dy[]; };
layout(std430, binding = 2) writeonly buffer InputGradient { float dx[]; };
#if IN_ACT != 0
layout(std430, binding = 3) readonly buffer Input { float xin[]; };
#endif
void main() {
  uint row = gpgpu_index();
  if (row >= gpgpu_count) return;
  int base = int(row) * F;
  float dot_dy_y = 0.0;
  for (int j = 0; j < F; ++j) dot_dy_y += dy[base + j] * y[base + j];
  for (int j = 0; j < F; ++j) {
    float g = y[base + j] * (dy[base + j] - dot_dy_y);
#if IN_ACT != 0
    g *= in_act_grad(xin[base + j]);
#endif
    dx[base + j] = g;
  }
}
)";

// Sums over one channel's COUNT = BATCH x HW values by a work group of 256: each
// invocation adds a strided share, then a tree in shared memory. Used by the BatchNorm
// kernels through the CHANNEL_SUM macro (GLSL ES allows barrier() only in main). Every
// barrier() is preceded by memoryBarrierShared(): without it Mesa moved the read of part[0]
// past the barrier that the next sum's writes follow (a wrong variance, measured).
inline constexpr const char* channel_reduce_prelude = R"(
layout(local_size_x = 256) in;
const int COUNT = BATCH * HW;
const int CHUNK = 256 * 32768;
shared float part[256];
int channel_index(int c, int j) {
  int n = j / HW;
  return (n * C + c) * HW + (j - n * HW);
}
#define CHANNEL_SUM(result, expr)                      \
  {                                                    \
    float s_ = 0.0;                                    \
    for (int b_ = 0; b_ < COUNT; b_ += CHUNK) {        \
      int e_ = min(COUNT, b_ + CHUNK);                 \
      for (int j = b_ + t; j < e_; j += 256) {         \
        int at = channel_index(c, j);                  \
        s_ += (expr);                                  \
      }                                                \
    }                                                  \
    part[t] = s_;                                      \
    memoryBarrierShared();                             \
    barrier();                                         \
    for (int w_ = 128; w_ > 0; w_ >>= 1) {             \
      if (t < w_) part[t] += part[t + w_];             \
      memoryBarrierShared();                           \
      barrier();                                       \
    }                                                  \
    result = part[0];                                  \
    memoryBarrierShared();                             \
    barrier();                                         \
  }
)";

// Training statistics of channel c: mean and 1/sqrt(var + EPS) (biased variance, two
// passes), and the running statistics (unbiased variance), as PyTorch keeps them.
inline constexpr const char* batchnorm_stats = R"(
layout(std430, binding = 0) readonly buffer Input { float x[]; };
layout(std430, binding = 1) buffer Params { float p[]; };
layout(std430, binding = 2) writeonly buffer Stats { float stats[]; };
void main() {
  int c = int(gl_WorkGroupID.x);
  int t = int(gl_LocalInvocationID.x);
  float total;
  CHANNEL_SUM(total, x[at])
  float mean = total / float(COUNT);
  float squares;
  CHANNEL_SUM(squares, (x[at] - mean) * (x[at] - mean))
  float variance = squares / float(COUNT);
  if (t == 0) {
    stats[c] = mean;
    stats[C + c] = inversesqrt(variance + EPS);
    p[MEAN_OFF + c] = (1.0 - MOMENTUM) * p[MEAN_OFF + c] + MOMENTUM * mean;
    p[VAR_OFF + c] = (1.0 - MOMENTUM) * p[VAR_OFF + c] +
                     MOMENTUM * variance * (float(COUNT) / float(max(COUNT - 1, 1)));
  }
}
)";

inline constexpr const char* batchnorm_normalize = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Input { float x[]; };
layout(std430, binding = 1) readonly buffer Params { float p[]; };
#ifdef TRAIN
layout(std430, binding = 2) readonly buffer Stats { float stats[]; };
#endif
layout(std430, binding = 3) writeonly buffer Output { float y[]; };
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  int c = (int(i) / HW) % C;
#ifdef TRAIN
  float mean = stats[c];
  float inv_std = stats[C + c];
#else
  float mean = p[MEAN_OFF + c];
  float inv_std = inversesqrt(p[VAR_OFF + c] + EPS);
#endif
  y[i] = apply_act((x[i] - mean) * inv_std * p[GAMMA_OFF + c] + p[BETA_OFF + c]);
}
)";

// Per channel: sum(dy) and sum(dy xhat) (the gradients of beta and gamma, kept for dx).
inline constexpr const char* batchnorm_backward_sums = R"(
layout(std430, binding = 0) readonly buffer Input { float x[]; };
layout(std430, binding = 1) readonly buffer OutputGradient { float dy[]; };
layout(std430, binding = 2) readonly buffer Stats { float stats[]; };
layout(std430, binding = 3) writeonly buffer Gradients { float g[]; };
layout(std430, binding = 4) writeonly buffer Sums { float sums[]; };
void main() {
  int c = int(gl_WorkGroupID.x);
  int t = int(gl_LocalInvocationID.x);
  float mean = stats[c];
  float inv_std = stats[C + c];
  float sum_dy;
  CHANNEL_SUM(sum_dy, dy[at])
  float sum_dy_xhat;
  CHANNEL_SUM(sum_dy_xhat, dy[at] * (x[at] - mean) * inv_std)
  if (t == 0) {
    g[GAMMA_OFF + c] = sum_dy_xhat;
    g[BETA_OFF + c] = sum_dy;
    sums[c] = sum_dy;
    sums[C + c] = sum_dy_xhat;
  }
}
)";

// dx = gamma inv_std / N (N dy - sum(dy) - xhat sum(dy xhat)), N = BATCH x HW.
inline constexpr const char* batchnorm_backward_input = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Input { float x[]; };
layout(std430, binding = 1) readonly buffer OutputGradient { float dy[]; };
layout(std430, binding = 2) readonly buffer Params { float p[]; };
layout(std430, binding = 3) readonly buffer Stats { float stats[]; };
layout(std430, binding = 4) readonly buffer Sums { float sums[]; };
layout(std430, binding = 5) writeonly buffer InputGradient { float dx[]; };
const float N = float(BATCH * HW);
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  int c = (int(i) / HW) % C;
  float inv_std = stats[C + c];
  float xhat = (x[i] - stats[c]) * inv_std;
  float g = p[GAMMA_OFF + c] * inv_std / N * (N * dy[i] - sums[c] - xhat * sums[C + c]);
#if IN_ACT != 0
  g *= in_act_grad(x[i]);
#endif
  dx[i] = g;
}
)";

// Softmax cross-entropy of BATCH rows of CLASSES logits, one work group: loss sum and
// correct count of the first `valid` rows added to acc[0] and acc[1]; gradient
// (softmax - onehot) / BATCH (times the output activation's derivative when ACT != 0);
// predictions (the first largest logit) at pred[pred_offset + row].
inline constexpr const char* loss = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Logits { float z[]; };
layout(std430, binding = 1) readonly buffer BatchLabels { uint labels[]; };
layout(std430, binding = 2) buffer Accumulators { float acc[]; };
#ifdef GRADIENT
layout(std430, binding = 3) writeonly buffer LogitGradient { float dz[]; };
#endif
#ifdef PREDICT
layout(std430, binding = 4) writeonly buffer Predictions { int pred[]; };
uniform uint pred_offset;
#endif
uniform uint valid;
shared float part_loss[256];
shared float part_correct[256];
void main() {
  int t = int(gl_LocalInvocationID.x);
  float loss_sum = 0.0;
  float correct = 0.0;
  for (int b = 0; b < BATCH; b += 256 * 32768) {
    int e = min(BATCH, b + 256 * 32768);
    for (int row = b + t; row < e; row += 256) {
      int base = row * CLASSES;
      float largest = z[base];
      int best = 0;
      for (int j = 1; j < CLASSES; ++j) {
        if (z[base + j] > largest) {
          largest = z[base + j];
          best = j;
        }
      }
      float sum = 0.0;
      for (int j = 0; j < CLASSES; ++j) sum += exp(z[base + j] - largest);
      int label = int(labels[row]);
      bool counted = uint(row) < valid;
      if (counted) {
        loss_sum += log(sum) - (z[base + label] - largest);
        correct += best == label ? 1.0 : 0.0;
      }
#ifdef GRADIENT
      for (int j = 0; j < CLASSES; ++j) {
        float g = counted ? (exp(z[base + j] - largest) / sum - (j == label ? 1.0 : 0.0)) *
                                (1.0 / float(BATCH))
                          : 0.0;
        dz[base + j] = g * act_grad_of_output(z[base + j]);
      }
#endif
#ifdef PREDICT
      if (counted) pred[pred_offset + uint(row)] = best;
#endif
    }
  }
  part_loss[t] = loss_sum;
  part_correct[t] = correct;
  memoryBarrierShared(); barrier();
  for (int w = 128; w > 0; w >>= 1) {
    if (t < w) {
      part_loss[t] += part_loss[t + w];
      part_correct[t] += part_correct[t + w];
    }
    memoryBarrierShared(); barrier();
  }
  if (t == 0) {
    acc[0] += part_loss[0];
    acc[1] += part_correct[0];
  }
}
)";

// The optimizers over the first gpgpu_count (the trainable) parameters.
inline constexpr const char* sgd = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer Params { float p[]; };
layout(std430, binding = 1) readonly buffer Gradients { float g[]; };
#ifdef MOMENTUM
layout(std430, binding = 2) buffer Velocity { float v[]; };
uniform float momentum;
#endif
uniform float lr;
uniform float weight_decay;
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  float step = g[i] + weight_decay * p[i];
#ifdef MOMENTUM
  step = momentum * v[i] + step;
  v[i] = step;
#endif
  p[i] -= lr * step;
}
)";

inline constexpr const char* adam = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer Params { float p[]; };
layout(std430, binding = 1) readonly buffer Gradients { float g[]; };
layout(std430, binding = 2) buffer FirstMoment { float m[]; };
layout(std430, binding = 3) buffer SecondMoment { float v[]; };
uniform float lr;
uniform float weight_decay;
uniform float beta1;
uniform float beta2;
uniform float epsilon;
uniform float correction1;  // 1 / (1 - beta1^t)
uniform float correction2;  // 1 / (1 - beta2^t)
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  float grad = g[i] + weight_decay * p[i];
  float mi = beta1 * m[i] + (1.0 - beta1) * grad;
  float vi = beta2 * v[i] + (1.0 - beta2) * grad * grad;
  m[i] = mi;
  v[i] = vi;
  p[i] -= lr * (mi * correction1) / (sqrt(vi * correction2) + epsilon);
}
)";

}  // namespace gpgpu::nn::detail::kernels
