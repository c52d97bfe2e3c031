// The CPU backend's loops (cpu_ops.hpp).
#include "cpu/cpu_ops.hpp"

#include <algorithm>
#include <cstring>

namespace gpgpu::nn::detail::cpu {

void add_bias_activate(float* y, std::size_t rows, std::size_t cols, std::size_t ld,
                       const float* bias, bool bias_per_column, Act act) {
  with_act(act, [&](auto a) {
    for (std::size_t r = 0; r < rows; ++r) {
      float* row = y + r * ld;
      if (bias_per_column) {
        for (std::size_t c = 0; c < cols; ++c)
          row[c] = activate<decltype(a)::value>(row[c] + bias[c]);
      } else {
        const float b = bias[r];
        for (std::size_t c = 0; c < cols; ++c) row[c] = activate<decltype(a)::value>(row[c] + b);
      }
    }
  });
}

void activate(const float* x, float* y, std::size_t n, Act act) {
  with_act(act, [&](auto a) {
    for (std::size_t i = 0; i < n; ++i) y[i] = activate<decltype(a)::value>(x[i]);
  });
}

void scale_by_derivative(float* g, const float* y, std::size_t n, Act act) {
  if (act == Act::None) return;
  with_act(act, [&](auto a) {
    for (std::size_t i = 0; i < n; ++i) g[i] *= derivative_from_output<decltype(a)::value>(y[i]);
  });
}

void derivative_times(const float* src, const float* y, float* dst, std::size_t n, Act act) {
  with_act(act, [&](auto a) {
    for (std::size_t i = 0; i < n; ++i)
      dst[i] = src[i] * derivative_from_output<decltype(a)::value>(y[i]);
  });
}

namespace {

// The outputs ox whose input column ox s + offset lies in [0, extent): [lo, hi).
void valid_range(std::size_t count, std::size_t stride, std::ptrdiff_t offset, std::size_t extent,
                 std::size_t& lo, std::size_t& hi) {
  const auto s = static_cast<std::ptrdiff_t>(stride);
  std::ptrdiff_t first = offset >= 0 ? 0 : (-offset + s - 1) / s;
  std::ptrdiff_t last = (static_cast<std::ptrdiff_t>(extent) - 1 - offset);
  last = last < 0 ? -1 : last / s;
  lo =
      static_cast<std::size_t>(std::min<std::ptrdiff_t>(first, static_cast<std::ptrdiff_t>(count)));
  hi = static_cast<std::size_t>(std::clamp<std::ptrdiff_t>(
      last + 1, static_cast<std::ptrdiff_t>(lo), static_cast<std::ptrdiff_t>(count)));
}

// Calls f(row, plane, ky, kx, oy_lo, oy_hi, ox_lo, ox_hi) for every (ci, ky, kx) row of the
// column matrix: the output positions whose tap lands inside the input.
template <class F>
void for_each_tap(const ConvGeometry& g, F&& f) {
  const auto pad = static_cast<std::ptrdiff_t>(g.padding);
  for (std::size_t ci = 0; ci < g.ci; ++ci) {
    for (std::size_t ky = 0; ky < g.kernel; ++ky) {
      std::size_t oy_lo, oy_hi;
      valid_range(g.oh, g.stride, static_cast<std::ptrdiff_t>(ky) - pad, g.ih, oy_lo, oy_hi);
      for (std::size_t kx = 0; kx < g.kernel; ++kx) {
        std::size_t ox_lo, ox_hi;
        valid_range(g.ow, g.stride, static_cast<std::ptrdiff_t>(kx) - pad, g.iw, ox_lo, ox_hi);
        f((ci * g.kernel + ky) * g.kernel + kx, ci, ky, kx, oy_lo, oy_hi, ox_lo, ox_hi);
      }
    }
  }
}

}  // namespace

bool im2col_is_identity(const ConvGeometry& g) {
  return g.kernel == 1 && g.stride == 1 && g.padding == 0;
}

void im2col(const ConvGeometry& g, const float* x, float* col) {
  const std::size_t s = g.stride, plane = g.out_plane();
  for_each_tap(g, [&](std::size_t row, std::size_t ci, std::size_t ky, std::size_t kx,
                      std::size_t oy_lo, std::size_t oy_hi, std::size_t ox_lo, std::size_t ox_hi) {
    float* dst = col + row * plane;
    std::fill(dst, dst + oy_lo * g.ow, 0.0f);
    for (std::size_t oy = oy_lo; oy < oy_hi; ++oy) {
      float* out = dst + oy * g.ow;
      // Input column ox s + kx - p, at least 0 from ox_lo on.
      const float* in = x + (ci * g.ih + oy * s + ky - g.padding) * g.iw;
      const std::size_t first = ox_lo * s + kx - g.padding;
      std::fill(out, out + ox_lo, 0.0f);
      if (s == 1) {
        std::memcpy(out + ox_lo, in + first, (ox_hi - ox_lo) * sizeof(float));
      } else {
        for (std::size_t ox = ox_lo; ox < ox_hi; ++ox) out[ox] = in[first + (ox - ox_lo) * s];
      }
      std::fill(out + ox_hi, out + g.ow, 0.0f);
    }
    std::fill(dst + oy_hi * g.ow, dst + plane, 0.0f);
  });
}

void col2im(const ConvGeometry& g, const float* col, float* x) {
  const std::size_t s = g.stride, plane = g.out_plane();
  std::fill(x, x + g.ci * g.in_plane(), 0.0f);
  for_each_tap(g, [&](std::size_t row, std::size_t ci, std::size_t ky, std::size_t kx,
                      std::size_t oy_lo, std::size_t oy_hi, std::size_t ox_lo, std::size_t ox_hi) {
    const float* src = col + row * plane;
    for (std::size_t oy = oy_lo; oy < oy_hi; ++oy) {
      const float* in = src + oy * g.ow + ox_lo;
      float* out = x + (ci * g.ih + oy * s + ky - g.padding) * g.iw + ox_lo * s + kx - g.padding;
      const std::size_t n = ox_hi - ox_lo;
      if (s == 1) {
        for (std::size_t i = 0; i < n; ++i) out[i] += in[i];
      } else {
        for (std::size_t i = 0; i < n; ++i) out[i * s] += in[i];
      }
    }
  });
}

void pool_forward(const PoolGeometry& g, std::size_t planes, const float* x, float* y,
                  std::int32_t* arg) {
  const std::size_t in_plane = g.ih * g.iw, out_plane = g.oh * g.ow;
  const float area = 1.0f / static_cast<float>(g.size * g.size);
  for (std::size_t p = 0; p < planes; ++p) {
    const float* in = x + p * in_plane;
    for (std::size_t oy = 0; oy < g.oh; ++oy) {
      for (std::size_t ox = 0; ox < g.ow; ++ox) {
        const std::size_t corner = oy * g.stride * g.iw + ox * g.stride;
        const std::size_t o = p * out_plane + oy * g.ow + ox;
        if (g.max) {
          std::size_t best_at = corner;
          float best = in[corner];
          for (std::size_t ky = 0; ky < g.size; ++ky) {
            for (std::size_t kx = 0; kx < g.size; ++kx) {
              const std::size_t at = corner + ky * g.iw + kx;
              if (in[at] > best) {
                best = in[at];
                best_at = at;
              }
            }
          }
          y[o] = best;
          if (arg) arg[o] = static_cast<std::int32_t>(best_at);
        } else {
          float sum = 0.0f;
          for (std::size_t ky = 0; ky < g.size; ++ky) {
            for (std::size_t kx = 0; kx < g.size; ++kx) sum += in[corner + ky * g.iw + kx];
          }
          y[o] = sum * area;
        }
      }
    }
  }
}

void pool_backward(const PoolGeometry& g, std::size_t planes, const float* dy,
                   const std::int32_t* arg, float* dx) {
  const std::size_t in_plane = g.ih * g.iw, out_plane = g.oh * g.ow;
  const float area = 1.0f / static_cast<float>(g.size * g.size);
  std::fill(dx, dx + planes * in_plane, 0.0f);
  for (std::size_t p = 0; p < planes; ++p) {
    float* out = dx + p * in_plane;
    for (std::size_t o = 0; o < out_plane; ++o) {
      const float d = dy[p * out_plane + o];
      if (g.max) {
        out[arg[p * out_plane + o]] += d;
        continue;
      }
      const std::size_t oy = o / g.ow, ox = o - oy * g.ow;
      const std::size_t corner = oy * g.stride * g.iw + ox * g.stride;
      for (std::size_t ky = 0; ky < g.size; ++ky) {
        for (std::size_t kx = 0; kx < g.size; ++kx) out[corner + ky * g.iw + kx] += d * area;
      }
    }
  }
}

void softmax_rows(const float* x, float* y, std::size_t rows, std::size_t cols) {
  for (std::size_t r = 0; r < rows; ++r) {
    const float* in = x + r * cols;
    float* out = y + r * cols;
    const float largest = *std::max_element(in, in + cols);
    float sum = 0.0f;
    for (std::size_t j = 0; j < cols; ++j) {
      out[j] = std::exp(in[j] - largest);
      sum += out[j];
    }
    const float inverse = 1.0f / sum;
    for (std::size_t j = 0; j < cols; ++j) out[j] *= inverse;
  }
}

void softmax_backward_rows(const float* y, const float* dy, float* dx, std::size_t rows,
                           std::size_t cols) {
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t base = r * cols;
    float dot = 0.0f;
    for (std::size_t j = 0; j < cols; ++j) dot += dy[base + j] * y[base + j];
    for (std::size_t j = 0; j < cols; ++j) dx[base + j] = y[base + j] * (dy[base + j] - dot);
  }
}

}  // namespace gpgpu::nn::detail::cpu
