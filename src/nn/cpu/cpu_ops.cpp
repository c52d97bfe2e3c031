// The CPU backend's loops (cpu_ops.hpp).
#include "cpu/cpu_ops.hpp"

#include <algorithm>

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

bool im2col_is_identity(const ConvGeometry& g) {
  return g.kernel == 1 && g.stride == 1 && g.padding == 0;
}

std::size_t padded_size(const ConvGeometry& g) {
  if (g.padding == 0) return 0;
  return g.ci * (g.ih + 2 * g.padding) * (g.iw + 2 * g.padding);
}

namespace {

// Calls f(column row, image plane ci's first tap (ky, kx) in the padded image) for every
// (ci, ky, kx): the tap of output (oy, ox) is then at oy s rows and ox s columns further.
template <class F>
void for_each_tap(const ConvGeometry& g, std::size_t row_length, F&& f) {
  const std::size_t plane = (g.ih + 2 * g.padding) * row_length;
  for (std::size_t ci = 0; ci < g.ci; ++ci) {
    for (std::size_t ky = 0; ky < g.kernel; ++ky) {
      for (std::size_t kx = 0; kx < g.kernel; ++kx) {
        f((ci * g.kernel + ky) * g.kernel + kx, ci * plane + ky * row_length + kx);
      }
    }
  }
}

}  // namespace

void im2col(const ConvGeometry& g, const float* x, float* col, float* padded) {
  const std::size_t p = g.padding, row_length = g.iw + 2 * p, s = g.stride;
  const float* image = x;
  if (p > 0) {
    std::fill(padded, padded + padded_size(g), 0.0f);
    for (std::size_t c = 0; c < g.ci; ++c) {
      for (std::size_t r = 0; r < g.ih; ++r) {
        std::copy_n(x + (c * g.ih + r) * g.iw, g.iw,
                    padded + (c * (g.ih + 2 * p) + r + p) * row_length + p);
      }
    }
    image = padded;
  }
  for_each_tap(g, row_length, [&](std::size_t row, std::size_t first) {
    float* out = col + row * g.out_plane();
    for (std::size_t oy = 0; oy < g.oh; ++oy) {
      const float* in = image + first + oy * s * row_length;
      float* o = out + oy * g.ow;
      if (s == 1) {
        for (std::size_t ox = 0; ox < g.ow; ++ox) o[ox] = in[ox];
      } else {
        for (std::size_t ox = 0; ox < g.ow; ++ox) o[ox] = in[ox * s];
      }
    }
  });
}

void col2im(const ConvGeometry& g, const float* col, float* x, float* padded) {
  const std::size_t p = g.padding, row_length = g.iw + 2 * p, s = g.stride;
  float* image = p > 0 ? padded : x;
  std::fill(image, image + g.ci * (g.ih + 2 * p) * row_length, 0.0f);
  for_each_tap(g, row_length, [&](std::size_t row, std::size_t first) {
    const float* in = col + row * g.out_plane();
    for (std::size_t oy = 0; oy < g.oh; ++oy) {
      float* o = image + first + oy * s * row_length;
      const float* c = in + oy * g.ow;
      if (s == 1) {
        for (std::size_t ox = 0; ox < g.ow; ++ox) o[ox] += c[ox];
      } else {
        for (std::size_t ox = 0; ox < g.ow; ++ox) o[ox * s] += c[ox];
      }
    }
  });
  if (p == 0) return;
  for (std::size_t c = 0; c < g.ci; ++c) {
    for (std::size_t r = 0; r < g.ih; ++r) {
      std::copy_n(padded + (c * (g.ih + 2 * p) + r + p) * row_length + p, g.iw,
                  x + (c * g.ih + r) * g.iw);
    }
  }
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
