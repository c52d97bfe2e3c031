// Internal: GLSL shared by the kernels of both GPU backends (activations, their
// derivatives, a hash for dropout masks and augmentation). The C++ copies of the hash and
// the augmentation are in plan/hash.hpp.
#pragma once

#include <string>

#include "gpgpu/defines.hpp"
#include "plan/stage_plan.hpp"

namespace gpgpu::nn::detail {

// ACT: the activation applied to a result (apply_act), with its constants ACT_A, ACT_B
// (LeakyReLU's alpha; Clip's min and max); IN_ACT (IN_ACT_A, IN_ACT_B): the activation that
// produced an input, whose derivative in_act_grad(x) takes that activation's output x.
// tanh is written out with exp(-2|v|), which never overflows (GLSL's tanh may return NaN
// for large |v| on some drivers). LeakyReLU's alpha >= 0 keeps the output's sign that of
// the input, so its derivative is read from the output as ReLU's is.
inline constexpr const char* activation_glsl = R"(
#ifndef ACT
#define ACT 0
#endif
#ifndef IN_ACT
#define IN_ACT 0
#endif
float safe_tanh(float v) {
  float e = exp(-2.0 * abs(v));
  return sign(v) * (1.0 - e) / (1.0 + e);
}
float apply_act(float v) {
#if ACT == 1
  return max(v, 0.0);
#elif ACT == 2
  return 1.0 / (1.0 + exp(-v));
#elif ACT == 3
  return safe_tanh(v);
#elif ACT == 4
  return v > 0.0 ? v : ACT_A * v;
#elif ACT == 5
  return clamp(v, ACT_A, ACT_B);
#else
  return v;
#endif
}
float act_grad_of_output(float y) {
#if ACT == 1
  return y > 0.0 ? 1.0 : 0.0;
#elif ACT == 2
  return y * (1.0 - y);
#elif ACT == 3
  return 1.0 - y * y;
#elif ACT == 4
  return y > 0.0 ? 1.0 : ACT_A;
#elif ACT == 5
  return y > ACT_A && y < ACT_B ? 1.0 : 0.0;
#else
  return 1.0;
#endif
}
float in_act_grad(float x) {
#if IN_ACT == 1
  return x > 0.0 ? 1.0 : 0.0;
#elif IN_ACT == 2
  return x * (1.0 - x);
#elif IN_ACT == 3
  return 1.0 - x * x;
#elif IN_ACT == 4
  return x > 0.0 ? 1.0 : IN_ACT_A;
#elif IN_ACT == 5
  return x > IN_ACT_A && x < IN_ACT_B ? 1.0 : 0.0;
#else
  return 1.0;
#endif
}
)";

// PCG's output permutation as a 32-bit hash (the same in C++ below).
inline constexpr const char* hash_glsl = R"(
uint pcg_hash(uint v) {
  uint state = v * 747796405u + 2891336453u;
  uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return (word >> 22u) ^ word;
}
)";

// Data augmentation for the batch gathers of both backends (they define FLIP, SHIFT, H, W):
// output pixel (yy, xx) of sample s shows input pixel (yy, xx) after this call, mirrored
// when the sample's hash says so and moved by up to SHIFT pixels each way; false when that
// pixel lies outside the image (the output is then 0). The hash of (epoch_seed, s) keeps
// one sample's flip and shift the same for all its pixels.
inline constexpr const char* augmentation_glsl = R"(
#if defined(FLIP) && defined(SHIFT)
bool augmented_pixel(uint epoch_seed, uint s, inout int yy, inout int xx) {
#if FLIP || SHIFT > 0
  uint h = pcg_hash(epoch_seed ^ pcg_hash(s));
#endif
#if FLIP
  if ((h & 1u) != 0u) xx = W - 1 - xx;
#endif
#if SHIFT > 0
  xx -= int((h >> 8) % uint(2 * SHIFT + 1)) - SHIFT;
  yy -= int((h >> 20) % uint(2 * SHIFT + 1)) - SHIFT;
#endif
  return xx >= 0 && xx < W && yy >= 0 && yy < H;
}
#endif
)";

// How each path's kernels read arrays (glsl/ops.hpp): storage buffers, or textures.
inline constexpr const char* compute_access = R"(
#define LOAD(a, j) a[j]
#define LOADU(a, j) a[j]
)";
inline constexpr const char* transform_feedback_access = R"(
float fetch(highp sampler2D t, int i) { return gpgpu_fetch(t, i).r; }
#define LOAD(a, j) fetch(a, j)
#define LOADU(a, j) gpgpu_fetch(a, j).r
)";

// Everything a kernel of either path starts with.
inline std::string kernel_prelude(const char* access) {
  return std::string(activation_glsl) + hash_glsl + augmentation_glsl + access;
}

// ACT, ACT_A, ACT_B, IN_ACT, IN_ACT_A, IN_ACT_B for a result's and an input's activation.
Defines activation_defines(const Activation& act, const Activation& input_act);

}  // namespace gpgpu::nn::detail
