// The CPU backend's loops (cpu_ops.hpp).
#include "cpu/cpu_ops.hpp"

#include <algorithm>

namespace gpgpu::nn::detail::cpu {

void add_bias_activate(float* y, std::size_t rows, std::size_t cols, std::size_t ld,
                       const float* bias, bool bias_per_column, const Activation& act) {
  const float a = act.a, b = act.b;
  with_act(act.kind, [&](auto k) {
    constexpr Act A = decltype(k)::value;
    for (std::size_t r = 0; r < rows; ++r) {
      float* row = y + r * ld;
      if (bias_per_column) {
        for (std::size_t c = 0; c < cols; ++c) row[c] = activate<A>(row[c] + bias[c], a, b);
      } else {
        const float bias_r = bias[r];
        for (std::size_t c = 0; c < cols; ++c) row[c] = activate<A>(row[c] + bias_r, a, b);
      }
    }
  });
}

void activate(const float* x, float* y, std::size_t n, const Activation& act) {
  const float a = act.a, b = act.b;
  with_act(act.kind, [&](auto k) {
    for (std::size_t i = 0; i < n; ++i) y[i] = activate<decltype(k)::value>(x[i], a, b);
  });
}

void scale_by_derivative(float* g, const float* y, std::size_t n, const Activation& act) {
  if (act.none()) return;
  const float a = act.a, b = act.b;
  with_act(act.kind, [&](auto k) {
    for (std::size_t i = 0; i < n; ++i)
      g[i] *= derivative_from_output<decltype(k)::value>(y[i], a, b);
  });
}

void derivative_times(const float* src, const float* y, float* dst, std::size_t n,
                      const Activation& act) {
  const float a = act.a, b = act.b;
  with_act(act.kind, [&](auto k) {
    for (std::size_t i = 0; i < n; ++i)
      dst[i] = src[i] * derivative_from_output<decltype(k)::value>(y[i], a, b);
  });
}

bool im2col_is_identity(const ConvGeometry& g) {
  return g.kernel == 1 && g.stride == 1 && !g.padded();
}

namespace {

// The padded image's extents.
std::size_t padded_rows(const ConvGeometry& g) {
  return g.pad.top + g.ih + g.pad.bottom;
}
std::size_t padded_columns(const ConvGeometry& g) {
  return g.pad.left + g.iw + g.pad.right;
}

// Where row r of plane c of the image lies in the padded image.
std::size_t padded_row_start(const ConvGeometry& g, std::size_t c, std::size_t r) {
  return (c * padded_rows(g) + r + g.pad.top) * padded_columns(g) + g.pad.left;
}

// Calls f(column row, image plane ci's first tap (ky, kx) in the padded image) for every
// (ci, ky, kx): the tap of output (oy, ox) is then at oy s rows and ox s columns further.
template <class F>
void for_each_tap(const ConvGeometry& g, F&& f) {
  const std::size_t row_length = padded_columns(g), plane = padded_rows(g) * row_length;
  for (std::size_t ci = 0; ci < g.ci; ++ci) {
    for (std::size_t ky = 0; ky < g.kernel; ++ky) {
      for (std::size_t kx = 0; kx < g.kernel; ++kx) {
        f((ci * g.kernel + ky) * g.kernel + kx, ci * plane + ky * row_length + kx);
      }
    }
  }
}

}  // namespace

std::size_t padded_size(const ConvGeometry& g) {
  if (!g.padded()) return 0;
  return g.ci * padded_rows(g) * padded_columns(g);
}

void im2col(const ConvGeometry& g, const float* x, float* col, float* padded) {
  const std::size_t row_length = padded_columns(g), s = g.stride;
  const float* image = x;
  if (g.padded()) {
    std::fill(padded, padded + padded_size(g), 0.0f);
    for (std::size_t c = 0; c < g.ci; ++c) {
      for (std::size_t r = 0; r < g.ih; ++r) {
        std::copy_n(x + (c * g.ih + r) * g.iw, g.iw, padded + padded_row_start(g, c, r));
      }
    }
    image = padded;
  }
  for_each_tap(g, [&](std::size_t row, std::size_t first) {
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
  const std::size_t row_length = padded_columns(g), s = g.stride;
  float* image = g.padded() ? padded : x;
  std::fill(image, image + g.ci * padded_rows(g) * row_length, 0.0f);
  for_each_tap(g, [&](std::size_t row, std::size_t first) {
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
  if (!g.padded()) return;
  for (std::size_t c = 0; c < g.ci; ++c) {
    for (std::size_t r = 0; r < g.ih; ++r) {
      std::copy_n(padded + padded_row_start(g, c, r), g.iw, x + (c * g.ih + r) * g.iw);
    }
  }
}

namespace {

// The input rows [first, end) a window starting at padded row `start` covers.
struct Span {
  std::size_t first, end;
};
Span covered(std::size_t start, std::size_t size, std::size_t before, std::size_t extent) {
  const std::size_t first = std::max(start, before), end = std::min(start + size, before + extent);
  return {first - before, end > first ? end - before : first - before};
}

}  // namespace

void pool_forward(const PoolGeometry& g, std::size_t planes, const float* x, float* y,
                  std::int32_t* arg) {
  const std::size_t in_plane = g.ih * g.iw, out_plane = g.oh * g.ow;
  for (std::size_t p = 0; p < planes; ++p) {
    const float* in = x + p * in_plane;
    for (std::size_t oy = 0; oy < g.oh; ++oy) {
      const Span rows = covered(oy * g.stride, g.size_y, g.pad.top, g.ih);
      for (std::size_t ox = 0; ox < g.ow; ++ox) {
        const Span cols = covered(ox * g.stride, g.size_x, g.pad.left, g.iw);
        const std::size_t o = p * out_plane + oy * g.ow + ox;
        if (g.max) {
          std::size_t best_at = rows.first * g.iw + cols.first;
          float best = in[best_at];
          for (std::size_t iy = rows.first; iy < rows.end; ++iy) {
            for (std::size_t ix = cols.first; ix < cols.end; ++ix) {
              const std::size_t at = iy * g.iw + ix;
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
          for (std::size_t iy = rows.first; iy < rows.end; ++iy) {
            for (std::size_t ix = cols.first; ix < cols.end; ++ix) sum += in[iy * g.iw + ix];
          }
          y[o] = sum * (1.0f / static_cast<float>(g.area(oy, ox)));
        }
      }
    }
  }
}

void pool_backward(const PoolGeometry& g, std::size_t planes, const float* dy,
                   const std::int32_t* arg, float* dx) {
  const std::size_t in_plane = g.ih * g.iw, out_plane = g.oh * g.ow;
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
      const Span rows = covered(oy * g.stride, g.size_y, g.pad.top, g.ih);
      const Span cols = covered(ox * g.stride, g.size_x, g.pad.left, g.iw);
      const float share = d * (1.0f / static_cast<float>(g.area(oy, ox)));
      for (std::size_t iy = rows.first; iy < rows.end; ++iy) {
        for (std::size_t ix = cols.first; ix < cols.end; ++ix) out[iy * g.iw + ix] += share;
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
