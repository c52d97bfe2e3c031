// Internal: the compute backend's own kernels — those whose shape is a compute work group:
// the batch gather (it also writes the labels), batch normalisation's channel reductions,
// the fused softmax cross-entropy and the optimizers over the flat parameter buffer. Their
// arithmetic is glsl/ops.hpp's (shared with the transform-feedback backend); the
// element-wise kernels are described once in glsl/element_kernel.cpp. Reductions over a
// batch or channel use one work group of 256 and nested loops (at most 32768 iterations
// each, for llvmpipe's 65535-iteration limit).
#pragma once

#include <string>

#include "glsl/ops.hpp"

namespace gpgpu::nn::detail::kernels {

// x[n][c][y][x] from sample order[first + n]; with LABELS the first invocation of each
// sample also copies its label (five storage buffers; without LABELS three, and
// gather_labels copies the labels: devices that bind only OpenGL ES 3.1's minimum of four).
inline const std::string gather = std::string(R"(
layout(local_size_x = gpgpu_group_size) in;
layout(std430, binding = 0) readonly buffer Pixels { uint pixels[]; };
layout(std430, binding = 2) readonly buffer Order { uint order[]; };
layout(std430, binding = 3) writeonly buffer Input { float x[]; };
#if LABELS
layout(std430, binding = 1) readonly buffer Labels { uint labels[]; };
layout(std430, binding = 4) writeonly buffer BatchLabels { uint batch_labels[]; };
#endif
)") + glsl::batch_order + glsl::gather +
                                  R"(
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  uint s;
  x[i] = gathered_pixel(int(i), s);
#if LABELS
  int n = int(i) / CHW;
  if (int(i) == n * CHW) batch_labels[n] = labels[s];
#endif
}
)";

// batch_labels[n] = labels[order[first + n]], one invocation per sample.
inline const std::string gather_labels = std::string(R"(
layout(local_size_x = gpgpu_group_size) in;
layout(std430, binding = 0) readonly buffer Labels { uint labels[]; };
layout(std430, binding = 1) readonly buffer Order { uint order[]; };
layout(std430, binding = 2) writeonly buffer BatchLabels { uint batch_labels[]; };
)") + glsl::batch_order + R"(
void main() {
  uint n = gpgpu_index();
  if (n < gpgpu_count) batch_labels[n] = labels[batch_sample(int(n))];
}
)";

// Sums over one channel's COUNT = BATCH x HW values by a work group of 256: each
// invocation adds a strided share, then a tree in shared memory. Used by the BatchNorm
// kernels through the CHANNEL_SUM macro (GLSL ES allows barrier() only in main). Every
// barrier() is preceded by memoryBarrierShared(): without it Mesa moved the read of part[0]
// past the barrier that the next sum's writes follow (a wrong variance, measured).
inline constexpr const char* channel_reduce_prelude = R"(
layout(local_size_x = gpgpu_group_size) in;
const int COUNT = BATCH * HW;
const int CHUNK = gpgpu_group_size * 32768;
shared float part[gpgpu_group_size];
int channel_index(int c, int j) {
  int n = j / HW;
  return (n * C + c) * HW + (j - n * HW);
}
#define CHANNEL_SUM(result, expr)                      \
  {                                                    \
    float s_ = 0.0;                                    \
    for (int b_ = 0; b_ < COUNT; b_ += CHUNK) {        \
      int e_ = min(COUNT, b_ + CHUNK);                 \
      for (int j = b_ + t; j < e_; j += gpgpu_group_size) { \
        int at = channel_index(c, j);                  \
        s_ += (expr);                                  \
      }                                                \
    }                                                  \
    part[t] = s_;                                      \
    memoryBarrierShared();                             \
    barrier();                                         \
    for (int w_ = gpgpu_group_size / 2; w_ > 0; w_ >>= 1) { \
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
// passes), and the running statistics; with BN_TABLE also gamma, at stats[2 C + c] (the
// channel table of glsl::batchnorm_gradient).
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
    p[MEAN_OFF + c] = bn_running_mean(p[MEAN_OFF + c], mean);
    p[VAR_OFF + c] = bn_running_var(p[VAR_OFF + c], variance);
#ifdef BN_TABLE
    stats[2 * C + c] = p[GAMMA_OFF + c];
#endif
  }
}
)";

// Per channel: sum(dy) and sum(dy xhat) (the gradients of beta and gamma, kept for dx in
// sums, or with BN_TABLE in the channel table, four storage buffers in all).
inline constexpr const char* batchnorm_backward_sums = R"(
layout(std430, binding = 0) readonly buffer Input { float x[]; };
layout(std430, binding = 1) readonly buffer OutputGradient { float dy[]; };
#ifdef BN_TABLE
layout(std430, binding = 2) buffer Stats { float stats[]; };
layout(std430, binding = 3) writeonly buffer Gradients { float g[]; };
#define SUMS_AT(j) stats[3 * C + (j)]
#else
layout(std430, binding = 2) readonly buffer Stats { float stats[]; };
layout(std430, binding = 3) writeonly buffer Gradients { float g[]; };
layout(std430, binding = 4) writeonly buffer Sums { float sums[]; };
#define SUMS_AT(j) sums[j]
#endif
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
    SUMS_AT(c) = sum_dy;
    SUMS_AT(C + c) = sum_dy_xhat;
  }
}
)";

// Softmax cross-entropy of BATCH rows of CLASSES logits, one work group: loss sum and
// correct count of the first `valid` rows added to acc[0] and acc[1]; the gradient (zero
// for rows past `valid`); predictions (the first largest logit) at pred[pred_offset + row].
inline const std::string loss = std::string(R"(
layout(local_size_x = gpgpu_group_size) in;
layout(std430, binding = 0) readonly buffer Logits { float z[]; };
layout(std430, binding = 1) readonly buffer BatchLabels { uint labels[]; };
layout(std430, binding = 2) buffer Accumulators { float acc[]; };
#ifdef GRADIENT
layout(std430, binding = 3) writeonly buffer LogitGradient { float dz[]; };
#endif
#ifdef PREDICT
// At the next free binding: OpenGL ES 3.1 guarantees bindings 0-3 only.
#ifdef GRADIENT
layout(std430, binding = 4) writeonly buffer Predictions { int pred[]; };
#else
layout(std430, binding = 3) writeonly buffer Predictions { int pred[]; };
#endif
uniform uint pred_offset;
#endif
uniform uint valid;
shared float part_loss[gpgpu_group_size];
shared float part_correct[gpgpu_group_size];
)") + glsl::logits + R"(
void main() {
  int t = int(gl_LocalInvocationID.x);
  float loss_sum = 0.0;
  float correct = 0.0;
  for (int b = 0; b < BATCH; b += gpgpu_group_size * 32768) {
    int e = min(BATCH, b + gpgpu_group_size * 32768);
    for (int row = b + t; row < e; row += gpgpu_group_size) {
      float largest;
      int best;
      float sum;
      logit_row(row, largest, best, sum);
      int label = int(labels[row]);
      bool counted = uint(row) < valid;
      if (counted) {
        loss_sum += logit_loss(row, label, largest, sum);
        correct += best == label ? 1.0 : 0.0;
      }
#ifdef GRADIENT
      for (int j = 0; j < CLASSES; ++j) {
        int i = row * CLASSES + j;
        dz[i] = counted ? logit_gradient(i, label, largest, sum) : 0.0;
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
  for (int w = gpgpu_group_size / 2; w > 0; w >>= 1) {
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

// The optimizers over the first gpgpu_count (the trainable) parameters, in place.
inline const std::string sgd = std::string(R"(
layout(local_size_x = gpgpu_group_size) in;
layout(std430, binding = 0) buffer Params { float p[]; };
layout(std430, binding = 1) readonly buffer Gradients { float g[]; };
#ifdef MOMENTUM
layout(std430, binding = 2) buffer Velocity { float v[]; };
#endif
)") + glsl::sgd + R"(
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  float velocity = 0.0;
#ifdef MOMENTUM
  velocity = v[i];
#endif
  p[i] = sgd_step(p[i], g[i], velocity);
#ifdef MOMENTUM
  v[i] = velocity;
#endif
}
)";

inline const std::string adam = std::string(R"(
layout(local_size_x = gpgpu_group_size) in;
layout(std430, binding = 0) buffer Params { float p[]; };
layout(std430, binding = 1) readonly buffer Gradients { float g[]; };
layout(std430, binding = 2) buffer FirstMoment { float m[]; };
layout(std430, binding = 3) buffer SecondMoment { float v[]; };
)") + glsl::adam + R"(
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  float mi = m[i];
  float vi = v[i];
  p[i] = adam_step(p[i], g[i], mi, vi);
  m[i] = mi;
  v[i] = vi;
}
)";

}  // namespace gpgpu::nn::detail::kernels
