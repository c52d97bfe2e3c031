// Internal: the CPU backend's loops over contiguous float32 — everything but the GEMMs.
// Each is a plain loop the compiler vectorises (no intrinsics); the activation is a
// template argument, so its switch stays outside the loops. Shapes come from the stage
// plan's geometry; one call works on one image or one range of rows, and the stages spread
// calls over the thread pool.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "plan/stage_plan.hpp"

namespace gpgpu::nn::detail::cpu {

// f(v) and f'(v) expressed through y = f(v), as the GLSL snippets define them (a, b: the
// activation's constants, Activation).
template <Act A>
inline float activate(float v, float a, float b) {
  if constexpr (A == Act::ReLU) return v > 0.0f ? v : 0.0f;
  if constexpr (A == Act::Sigmoid) return 1.0f / (1.0f + std::exp(-v));
  if constexpr (A == Act::Tanh) return std::tanh(v);
  if constexpr (A == Act::LeakyReLU) return v > 0.0f ? v : a * v;
  if constexpr (A == Act::Clip) return v < a ? a : (v > b ? b : v);
  return v;
}
template <Act A>
inline float derivative_from_output(float y, float a, float b) {
  if constexpr (A == Act::ReLU) return y > 0.0f ? 1.0f : 0.0f;
  if constexpr (A == Act::Sigmoid) return y * (1.0f - y);
  if constexpr (A == Act::Tanh) return 1.0f - y * y;
  if constexpr (A == Act::LeakyReLU) return y > 0.0f ? 1.0f : a;
  if constexpr (A == Act::Clip) return y > a && y < b ? 1.0f : 0.0f;
  return 1.0f;
}

// Calls f(std::integral_constant<Act, act>{}) for the run-time `act`.
template <class F>
inline void with_act(Act act, F&& f) {
  switch (act) {
    case Act::ReLU:
      return f(std::integral_constant<Act, Act::ReLU>{});
    case Act::Sigmoid:
      return f(std::integral_constant<Act, Act::Sigmoid>{});
    case Act::Tanh:
      return f(std::integral_constant<Act, Act::Tanh>{});
    case Act::LeakyReLU:
      return f(std::integral_constant<Act, Act::LeakyReLU>{});
    case Act::Clip:
      return f(std::integral_constant<Act, Act::Clip>{});
    case Act::None:
      return f(std::integral_constant<Act, Act::None>{});
  }
}

// y[r][c] = act(y[r][c] + bias[r]) for a (rows, cols) block (a convolution's output plane
// per filter); with `bias_per_column`, bias[c] instead (a dense layer's rows of units).
void add_bias_activate(float* y, std::size_t rows, std::size_t cols, std::size_t ld,
                       const float* bias, bool bias_per_column, const Activation& act);
// y = act(x), n values.
void activate(const float* x, float* y, std::size_t n, const Activation& act);
// g[i] *= act'(y[i]) with y the activation's output (a no-op for Act::None).
void scale_by_derivative(float* g, const float* y, std::size_t n, const Activation& act);
// dst[i] = src[i] act'(y[i]).
void derivative_times(const float* src, const float* y, float* dst, std::size_t n,
                      const Activation& act);

// The (depth x out_plane) column matrix of one image (ci, ih, iw): row (ci, ky, kx), column
// (oy, ox) holds x[ci][oy s + ky - p][ox s + kx - p], 0 in the padding. With padding, the
// image is first copied into `padded` (padded_size floats) with its zero border, so that
// every row of the matrix is a plain strided copy without bounds tests: this made the
// cnn's im2col 7x faster than copying each row's in-bounds part and filling the rest.
void im2col(const ConvGeometry& g, const float* x, float* col, float* padded);
// The adjoint: x = every column entry added back where im2col took it from (through
// `padded` as well, whose border is then dropped).
void col2im(const ConvGeometry& g, const float* col, float* x, float* padded);
// The scratch im2col and col2im need: the padded image, or 0 without padding.
std::size_t padded_size(const ConvGeometry& g);
// Whether im2col is the identity (1x1 kernel, stride 1, no padding): x is the matrix.
bool im2col_is_identity(const ConvGeometry& g);

// Pooling over `planes` (ih, iw) planes: y per window (cut to the input where it reaches
// past it, PoolGeometry); max pooling records in arg the index of the first largest value
// within its plane (when arg is given).
void pool_forward(const PoolGeometry& g, std::size_t planes, const float* x, float* y,
                  std::int32_t* arg);
// dx = 0, then each window's gradient back to its maximum (or spread over an average's
// window).
void pool_backward(const PoolGeometry& g, std::size_t planes, const float* dy,
                   const std::int32_t* arg, float* dx);

// Softmax over each of `rows` rows of `cols`.
void softmax_rows(const float* x, float* y, std::size_t rows, std::size_t cols);
// dx = y (dy - <dy, y>) per row.
void softmax_backward_rows(const float* y, const float* dy, float* dx, std::size_t rows,
                           std::size_t cols);

}  // namespace gpgpu::nn::detail::cpu
