// The float64 reference layers and their float32 error bounds (see reference.hpp).
#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace nnref {

namespace {

constexpr double ulp = 2 * eps;  // 2^-23: one unit in the last place for values in [1, 2)

// Sizes of a convolution or pooling: kernel ky x kx, padding per side. The output extents
// are the model's own (layers.cpp computes them; the reference computes what each output
// position holds, which a wrong extent would still get wrong).
struct Window {
  std::size_t c = 0, ih = 0, iw = 0, co = 0, oh = 0, ow = 0, ky = 0, kx = 0, stride = 1;
  std::size_t top = 0, left = 0, bottom = 0, right = 0;
  bool count_include_pad = true;
  // The input row of window row `o`, tap `t`, or -1 in the padding.
  long row(std::size_t o, std::size_t t) const {
    const long r = static_cast<long>(o * stride + t) - static_cast<long>(top);
    return r < static_cast<long>(ih) ? r : -1;
  }
  long col(std::size_t o, std::size_t t) const {
    const long q = static_cast<long>(o * stride + t) - static_cast<long>(left);
    return q < static_cast<long>(iw) ? q : -1;
  }
  // An average's divisor: the window's positions within the padded input, or the input.
  double area(std::size_t oy, std::size_t ox) const {
    double rows = 0, cols = 0;
    for (std::size_t t = 0; t < ky; ++t) {
      const long r = static_cast<long>(oy * stride + t) - static_cast<long>(top);
      rows += count_include_pad ? r < static_cast<long>(ih + bottom)
                                : (r >= 0 && r < static_cast<long>(ih));
    }
    for (std::size_t t = 0; t < kx; ++t) {
      const long q = static_cast<long>(ox * stride + t) - static_cast<long>(left);
      cols += count_include_pad ? q < static_cast<long>(iw + right)
                                : (q >= 0 && q < static_cast<long>(iw));
    }
    return rows * cols;
  }
};

Window conv_window(const gpgpu::nn::Conv2D& c, const Shape& in) {
  const auto p = gpgpu::nn::padding_of(c);
  const Shape out = gpgpu::nn::output_shape(c, in);
  return {in[0],    in[1],    in[2], c.filters, out[1],   out[2], c.kernel,
          c.kernel, c.stride, p.top, p.left,    p.bottom, p.right};
}

template <class Pool>
Window pool_window(const Pool& pool, const Shape& in) {
  const auto p = gpgpu::nn::padding_of(pool);
  const Shape out = gpgpu::nn::output_shape(pool, in);
  return {in[0],     in[1],     in[2],
          in[0],     out[1],    out[2],
          pool.size, pool.size, pool.stride == 0 ? pool.size : pool.stride,
          p.top,     p.left,    p.bottom,
          p.right};
}

Window global_window(const Shape& in) {
  return {in[0], in[1], in[2], in[0], 1, 1, in[1], in[2], 1};
}

Window avg_window(const gpgpu::nn::AvgPool2D& pool, const Shape& in) {
  Window w = pool_window(pool, in);
  w.count_include_pad = pool.count_include_pad;
  return w;
}

Array zeros(std::size_t n) {
  return {std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
}

double sigmoid(double v) {
  return 1.0 / (1.0 + std::exp(-v));
}

// --- Dense -------------------------------------------------------------------------------

ForwardState dense_forward(std::size_t nin, std::size_t nout, std::size_t batch, const Array& x,
                           const std::vector<double>& p) {
  ForwardState f;
  f.y = zeros(batch * nout);
  const double* w = p.data();
  const double* b = p.data() + nout * nin;
  for (std::size_t n = 0; n < batch; ++n) {
    for (std::size_t o = 0; o < nout; ++o) {
      double sum = b[o], terms = std::abs(b[o]), carried = 0;
      for (std::size_t i = 0; i < nin; ++i) {
        sum += x.v[n * nin + i] * w[o * nin + i];
        terms += std::abs(x.v[n * nin + i] * w[o * nin + i]);
        carried += std::abs(w[o * nin + i]) * x.e[n * nin + i];
      }
      f.y.v[n * nout + o] = sum;
      f.y.e[n * nout + o] = carried + static_cast<double>(nin + 2) * eps * terms;
    }
  }
  return f;
}

BackwardResult dense_backward(std::size_t nin, std::size_t nout, std::size_t batch, const Array& x,
                              const Array& dy, const std::vector<double>& p) {
  BackwardResult r;
  r.dx = zeros(batch * nin);
  r.dparams = zeros(nout * nin + nout);
  const double* w = p.data();
  for (std::size_t n = 0; n < batch; ++n) {
    for (std::size_t i = 0; i < nin; ++i) {
      double sum = 0, terms = 0, carried = 0;
      for (std::size_t o = 0; o < nout; ++o) {
        sum += dy.v[n * nout + o] * w[o * nin + i];
        terms += std::abs(dy.v[n * nout + o] * w[o * nin + i]);
        carried += std::abs(w[o * nin + i]) * dy.e[n * nout + o];
      }
      r.dx.v[n * nin + i] = sum;
      r.dx.e[n * nin + i] = carried + static_cast<double>(nout + 2) * eps * terms;
    }
  }
  for (std::size_t o = 0; o < nout; ++o) {
    for (std::size_t i = 0; i <= nin; ++i) {
      double sum = 0, terms = 0, carried = 0;
      for (std::size_t n = 0; n < batch; ++n) {
        const double xv = i < nin ? x.v[n * nin + i] : 1.0;
        const double xe = i < nin ? x.e[n * nin + i] : 0.0;
        const double g = dy.v[n * nout + o];
        sum += g * xv;
        terms += std::abs(g * xv);
        carried += std::abs(g) * xe + std::abs(xv) * dy.e[n * nout + o];
      }
      const std::size_t at = i < nin ? o * nin + i : nout * nin + o;
      r.dparams.v[at] = sum;
      r.dparams.e[at] = carried + static_cast<double>(batch + 2) * eps * terms;
    }
  }
  return r;
}

// --- Conv2D ------------------------------------------------------------------------------

// Calls f(n, co, oy, ox, ci, ky, kx, input index) for every product of the convolution.
template <class F>
void for_each_product(const Window& w, std::size_t batch, F&& f) {
  for (std::size_t n = 0; n < batch; ++n)
    for (std::size_t co = 0; co < w.co; ++co)
      for (std::size_t oy = 0; oy < w.oh; ++oy)
        for (std::size_t ox = 0; ox < w.ow; ++ox)
          for (std::size_t ci = 0; ci < w.c; ++ci)
            for (std::size_t ky = 0; ky < w.ky; ++ky)
              for (std::size_t kx = 0; kx < w.kx; ++kx) {
                const long iy = w.row(oy, ky), ix = w.col(ox, kx);
                if (iy < 0 || ix < 0) continue;
                f(n, co, oy, ox, ci, ky, kx,
                  ((n * w.c + ci) * w.ih + static_cast<std::size_t>(iy)) * w.iw +
                      static_cast<std::size_t>(ix));
              }
}

ForwardState conv_forward(const Window& w, std::size_t batch, const Array& x,
                          const std::vector<double>& p) {
  ForwardState f;
  const std::size_t out = batch * w.co * w.oh * w.ow, kk = w.ky * w.kx;
  f.y = zeros(out);
  std::vector<double> terms(out, 0.0);
  const double* bias = p.data() + w.co * w.c * kk;
  auto out_at = [&](std::size_t n, std::size_t co, std::size_t oy, std::size_t ox) {
    return ((n * w.co + co) * w.oh + oy) * w.ow + ox;
  };
  for (std::size_t n = 0; n < batch; ++n)
    for (std::size_t co = 0; co < w.co; ++co)
      for (std::size_t o = 0; o < w.oh * w.ow; ++o) {
        const std::size_t at = (n * w.co + co) * w.oh * w.ow + o;
        f.y.v[at] = bias[co];
        terms[at] = std::abs(bias[co]);
      }
  for_each_product(w, batch,
                   [&](std::size_t n, std::size_t co, std::size_t oy, std::size_t ox,
                       std::size_t ci, std::size_t ky, std::size_t kx, std::size_t xi) {
                     const double wv = p[((co * w.c + ci) * w.ky + ky) * w.kx + kx];
                     const std::size_t at = out_at(n, co, oy, ox);
                     f.y.v[at] += x.v[xi] * wv;
                     terms[at] += std::abs(x.v[xi] * wv);
                     f.y.e[at] += std::abs(wv) * x.e[xi];
                   });
  for (std::size_t i = 0; i < out; ++i)
    f.y.e[i] += static_cast<double>(w.c * kk + 2) * eps * terms[i];
  return f;
}

BackwardResult conv_backward(const Window& w, std::size_t batch, const Array& x, const Array& dy,
                             const std::vector<double>& p) {
  BackwardResult r;
  const std::size_t kk = w.ky * w.kx, nw = w.co * w.c * kk;
  r.dx = zeros(x.size());
  r.dparams = zeros(nw + w.co);
  std::vector<double> dx_terms(x.size(), 0.0), dw_terms(nw + w.co, 0.0);
  auto out_at = [&](std::size_t n, std::size_t co, std::size_t oy, std::size_t ox) {
    return ((n * w.co + co) * w.oh + oy) * w.ow + ox;
  };
  for_each_product(w, batch,
                   [&](std::size_t n, std::size_t co, std::size_t oy, std::size_t ox,
                       std::size_t ci, std::size_t ky, std::size_t kx, std::size_t xi) {
                     const std::size_t wi = ((co * w.c + ci) * w.ky + ky) * w.kx + kx;
                     const std::size_t yi = out_at(n, co, oy, ox);
                     const double g = dy.v[yi];
                     r.dx.v[xi] += g * p[wi];
                     dx_terms[xi] += std::abs(g * p[wi]);
                     r.dx.e[xi] += std::abs(p[wi]) * dy.e[yi];
                     r.dparams.v[wi] += g * x.v[xi];
                     dw_terms[wi] += std::abs(g * x.v[xi]);
                     r.dparams.e[wi] += std::abs(g) * x.e[xi] + std::abs(x.v[xi]) * dy.e[yi];
                   });
  for (std::size_t n = 0; n < batch; ++n)
    for (std::size_t co = 0; co < w.co; ++co)
      for (std::size_t o = 0; o < w.oh * w.ow; ++o) {
        const std::size_t yi = (n * w.co + co) * w.oh * w.ow + o;
        r.dparams.v[nw + co] += dy.v[yi];
        dw_terms[nw + co] += std::abs(dy.v[yi]);
        r.dparams.e[nw + co] += dy.e[yi];
      }
  // The GPU sums dx over (co, ky, kx) = CO k k terms (zeros included) and the weight
  // gradients over batch x OH x OW positions.
  for (std::size_t i = 0; i < x.size(); ++i)
    r.dx.e[i] += static_cast<double>(w.co * kk + 2) * eps * dx_terms[i];
  const auto positions = static_cast<double>(batch * w.oh * w.ow + 2);
  for (std::size_t i = 0; i < nw + w.co; ++i) r.dparams.e[i] += positions * eps * dw_terms[i];
  return r;
}

// --- Pooling -----------------------------------------------------------------------------

// The input indices window (plane, oy, ox) covers, in scan order (rows, then columns).
std::vector<std::size_t> window_inputs(const Window& w, std::size_t plane, std::size_t oy,
                                       std::size_t ox) {
  std::vector<std::size_t> in;
  for (std::size_t ky = 0; ky < w.ky; ++ky)
    for (std::size_t kx = 0; kx < w.kx; ++kx) {
      const long iy = w.row(oy, ky), ix = w.col(ox, kx);
      if (iy < 0 || ix < 0) continue;
      in.push_back((plane * w.ih + static_cast<std::size_t>(iy)) * w.iw +
                   static_cast<std::size_t>(ix));
    }
  if (in.empty()) throw std::logic_error("nnref: a pooling window covers no input");
  return in;
}

ForwardState pool_forward(const Window& w, std::size_t batch, const Array& x, bool max) {
  ForwardState f;
  f.y = zeros(batch * w.c * w.oh * w.ow);
  for (std::size_t plane = 0; plane < batch * w.c; ++plane)
    for (std::size_t oy = 0; oy < w.oh; ++oy)
      for (std::size_t ox = 0; ox < w.ow; ++ox) {
        const double area = w.area(oy, ox);
        double best = -INFINITY, best_e = 0, sum = 0, sum_e = 0, terms = 0;
        for (std::size_t i : window_inputs(w, plane, oy, ox)) {
          best = std::max(best, x.v[i]);
          best_e = std::max(best_e, x.e[i]);  // max is 1-Lipschitz in the max norm
          sum += x.v[i];
          sum_e += x.e[i];
          terms += std::abs(x.v[i]);
        }
        const std::size_t o = (plane * w.oh + oy) * w.ow + ox;
        f.y.v[o] = max ? best : sum / area;
        // A sum of at most area terms, then a product with the rounded 1 / area.
        f.y.e[o] = max ? best_e : (sum_e + (area + 3) * eps * terms) / area;
      }
  return f;
}

BackwardResult pool_backward(const Window& w, std::size_t batch, const Array& x, const Array& dy,
                             bool max) {
  BackwardResult r;
  r.dx = zeros(x.size());
  std::vector<double> terms(x.size(), 0.0);
  std::vector<std::size_t> windows(x.size(), 0);
  for (std::size_t plane = 0; plane < batch * w.c; ++plane)
    for (std::size_t oy = 0; oy < w.oh; ++oy)
      for (std::size_t ox = 0; ox < w.ow; ++ox) {
        const std::size_t o = (plane * w.oh + oy) * w.ow + ox;
        const double area = w.area(oy, ox);
        const std::vector<std::size_t> in = window_inputs(w, plane, oy, ox);
        if (!max) {
          for (std::size_t i : in) {
            r.dx.v[i] += dy.v[o] / area;
            r.dx.e[i] += dy.e[o] / area;
            terms[i] += std::abs(dy.v[o]) / area;
            ++windows[i];
          }
          continue;
        }
        std::size_t chosen = in[0];  // the first largest, as the kernel scans
        for (std::size_t i : in) {
          if (x.v[i] > x.v[chosen]) chosen = i;
        }
        r.dx.v[chosen] += dy.v[o];
        std::size_t candidates = 0;
        for (std::size_t i : in) {
          if (x.v[i] >= x.v[chosen] - (x.e[i] + x.e[chosen])) ++candidates;
        }
        for (std::size_t i : in) {
          const bool candidate = x.v[i] >= x.v[chosen] - (x.e[i] + x.e[chosen]);
          if (candidates > 1 && candidate) {
            r.dx.e[i] += std::abs(dy.v[o]) + dy.e[o];  // the device may pick another maximum
          } else if (i == chosen) {
            r.dx.e[i] += dy.e[o];
          }
          terms[i] += candidate ? std::abs(dy.v[o]) : 0.0;
          if (candidate) ++windows[i];
        }
      }
  for (std::size_t i = 0; i < x.size(); ++i) {
    r.dx.e[i] += static_cast<double>(windows[i] + 3) * eps * terms[i];
  }
  return r;
}

// --- Activations -------------------------------------------------------------------------

ForwardState activation_forward(const Layer& layer, const Array& x) {
  ForwardState f;
  f.y = zeros(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = x.v[i];
    if (std::holds_alternative<gpgpu::nn::ReLU>(layer)) {
      f.y.v[i] = std::max(v, 0.0);
      f.y.e[i] = x.e[i];
    } else if (const auto* l = std::get_if<gpgpu::nn::LeakyReLU>(&layer)) {
      // alpha v: one rounding; within its error of 0 the input may be on either side.
      const double alpha = l->alpha;
      f.y.v[i] = v > 0 ? v : alpha * v;
      f.y.e[i] = std::max(1.0, alpha) * x.e[i] + eps * std::abs(f.y.v[i]);
    } else if (const auto* c = std::get_if<gpgpu::nn::Clip>(&layer)) {
      f.y.v[i] = std::clamp(v, static_cast<double>(c->min), static_cast<double>(c->max));
      f.y.e[i] = x.e[i];  // 1-Lipschitz, exact
    } else if (std::holds_alternative<gpgpu::nn::Sigmoid>(layer)) {
      // sigma = 1/(1 + e), e = exp(-v) with relative error (3 + 2|v|) ulp: d sigma = -sigma
      // (1 - sigma) de/e, plus the add and the division; slope at most 1/4 for input errors.
      const double s = sigmoid(v);
      f.y.v[i] = s;
      f.y.e[i] = 0.25 * x.e[i] + s * ((3 + 2 * std::abs(v)) * ulp + 2 * ulp);
    } else {
      // tanh = (1 - e)/(1 + e), e = exp(-2|v|) with relative error (3 + 4|v|) ulp;
      // |d tanh / de| = 2/(1 + e)^2 <= 2; three roundings; slope at most 1.
      const double t = std::tanh(v), e = std::exp(-2 * std::abs(v));
      f.y.v[i] = t;
      f.y.e[i] = x.e[i] + 2 * e * (3 + 4 * std::abs(v)) * ulp + 4 * eps;
    }
  }
  return f;
}

BackwardResult activation_backward(const Layer& layer, const Array& x, const ForwardState& fwd,
                                   const Array& dy) {
  BackwardResult r;
  r.dx = zeros(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double g = dy.v[i], ge = dy.e[i], y = fwd.y.v[i], ye = fwd.y.e[i];
    if (std::holds_alternative<gpgpu::nn::ReLU>(layer)) {
      const bool on = x.v[i] > 0;
      r.dx.v[i] = on ? g : 0.0;
      // Within its error of 0 the input may be on either side of the kink.
      r.dx.e[i] = std::abs(x.v[i]) <= x.e[i] ? std::abs(g) + ge : (on ? ge : 0.0);
    } else if (const auto* l = std::get_if<gpgpu::nn::LeakyReLU>(&layer)) {
      const double alpha = l->alpha;
      const bool on = x.v[i] > 0;
      r.dx.v[i] = on ? g : alpha * g;
      const double own = (on ? 1.0 : alpha) * ge + (on ? 0.0 : eps * std::abs(alpha * g));
      r.dx.e[i] = std::abs(x.v[i]) <= x.e[i] ? std::abs(g) * std::abs(1 - alpha) + own + ge : own;
    } else if (const auto* c = std::get_if<gpgpu::nn::Clip>(&layer)) {
      const double lo = c->min, hi = c->max;
      const bool on = x.v[i] > lo && x.v[i] < hi;
      r.dx.v[i] = on ? g : 0.0;
      const bool near_edge = std::abs(x.v[i] - lo) <= x.e[i] || std::abs(x.v[i] - hi) <= x.e[i];
      r.dx.e[i] = near_edge ? std::abs(g) + ge : (on ? ge : 0.0);
    } else if (std::holds_alternative<gpgpu::nn::Sigmoid>(layer)) {
      const double d = y * (1 - y);
      r.dx.v[i] = g * d;
      r.dx.e[i] = d * ge + std::abs(g) * (std::abs(1 - 2 * y) * ye + ye * ye + 3 * eps * d) +
                  2 * eps * std::abs(g * d);
    } else {
      const double d = 1 - y * y;
      r.dx.v[i] = g * d;
      r.dx.e[i] = d * ge + std::abs(g) * (2 * std::abs(y) * ye + ye * ye + 2 * eps) +
                  2 * eps * std::abs(g * d);
    }
  }
  return r;
}

ForwardState softmax_forward(std::size_t features, std::size_t batch, const Array& x) {
  ForwardState f;
  f.y = zeros(x.size());
  for (std::size_t n = 0; n < batch; ++n) {
    const double* row = x.v.data() + n * features;
    const double largest = *std::max_element(row, row + features);
    double sum = 0, max_e = 0, spread = 0;
    for (std::size_t j = 0; j < features; ++j) {
      sum += std::exp(row[j] - largest);
      max_e = std::max(max_e, x.e[n * features + j]);
      spread = std::max(spread, largest - row[j]);
    }
    for (std::size_t j = 0; j < features; ++j) {
      const double p = std::exp(row[j] - largest) / sum;
      f.y.v[n * features + j] = p;
      // d log p_j = dx_j - sum_k p_k dx_k: at most 2 max|dx|; each exp (3 + 2 spread) ulp,
      // the sum of F of them (F + 1) eps more, the division one rounding.
      f.y.e[n * features + j] =
          p * (2 * max_e + 2 * (3 + 2 * spread) * ulp + static_cast<double>(features + 3) * eps);
    }
  }
  return f;
}

BackwardResult softmax_backward(std::size_t features, std::size_t batch, const ForwardState& fwd,
                                const Array& dy) {
  BackwardResult r;
  r.dx = zeros(dy.size());
  for (std::size_t n = 0; n < batch; ++n) {
    double s = 0, s_terms = 0, s_err = 0;
    for (std::size_t j = 0; j < features; ++j) {
      const std::size_t i = n * features + j;
      s += dy.v[i] * fwd.y.v[i];
      s_terms += std::abs(dy.v[i] * fwd.y.v[i]);
      s_err += std::abs(fwd.y.v[i]) * dy.e[i] + std::abs(dy.v[i]) * fwd.y.e[i];
    }
    s_err += static_cast<double>(features + 2) * eps * s_terms;
    for (std::size_t j = 0; j < features; ++j) {
      const std::size_t i = n * features + j;
      const double y = fwd.y.v[i];
      r.dx.v[i] = y * (dy.v[i] - s);
      r.dx.e[i] = fwd.y.e[i] * (std::abs(dy.v[i] - s) + dy.e[i] + s_err) + y * (dy.e[i] + s_err) +
                  3 * eps * y * (std::abs(dy.v[i]) + std::abs(s));
    }
  }
  return r;
}

// --- Batch normalisation ---------------------------------------------------------------

struct BatchNormSizes {
  std::size_t c, hw, count;
};

BatchNormSizes bn_sizes(const Shape& in, std::size_t batch) {
  const std::size_t c = in[0], hw = in.size() / in[0];
  return {c, hw, batch * hw};
}

template <class F>
void for_channel(const BatchNormSizes& s, std::size_t batch, std::size_t c, F&& f) {
  for (std::size_t n = 0; n < batch; ++n)
    for (std::size_t q = 0; q < s.hw; ++q) f((n * s.c + c) * s.hw + q);
}

ForwardState batchnorm_forward(const gpgpu::nn::BatchNorm& bn, const Shape& in, std::size_t batch,
                               const Array& x, const std::vector<double>& p, bool train) {
  const auto s = bn_sizes(in, batch);
  const double* gamma = p.data();
  const double* beta = p.data() + s.c;
  const double* rmean = p.data() + 2 * s.c;
  const double* rvar = p.data() + 3 * s.c;
  ForwardState f;
  f.y = zeros(x.size());
  f.mean.resize(s.c);
  f.inv_std.resize(s.c);
  f.mean_err.resize(s.c);
  f.inv_std_err.resize(s.c);
  f.running_mean.assign(rmean, rmean + s.c);
  f.running_var.assign(rvar, rvar + s.c);
  const auto n = static_cast<double>(s.count);
  for (std::size_t c = 0; c < s.c; ++c) {
    double mean = rmean[c], var = rvar[c], mean_err = 0, var_err = 0;
    if (train) {
      double sum = 0, abs_sum = 0, e_sum = 0;
      for_channel(s, batch, c, [&](std::size_t i) {
        sum += x.v[i];
        abs_sum += std::abs(x.v[i]);
        e_sum += x.e[i];
      });
      mean = sum / n;
      mean_err = (e_sum + (n + 2) * eps * abs_sum) / n;
      double sq = 0, d_abs = 0, d_err_sq = 0;
      for_channel(s, batch, c, [&](std::size_t i) {
        const double d = x.v[i] - mean, de = x.e[i] + mean_err + eps * std::abs(d);
        sq += d * d;
        d_abs += 2 * std::abs(d) * de;
        d_err_sq += de * de;
      });
      var = sq / n;
      var_err = ((n + 3) * eps * sq + d_abs + d_err_sq) / n;
      const double m = bn.momentum;
      f.running_mean[c] = (1 - m) * rmean[c] + m * mean;
      f.running_var[c] = (1 - m) * rvar[c] + m * var * n / std::max(n - 1, 1.0);
    }
    const double inv = 1 / std::sqrt(var + bn.epsilon);
    // 1/sqrt(v): relative error half that of v, plus 2 ulp for inversesqrt and the add.
    const double inv_err = inv * (var_err / (2 * (var + bn.epsilon)) + 2 * ulp + 2 * eps);
    f.mean[c] = mean;
    f.inv_std[c] = inv;
    f.mean_err[c] = mean_err;
    f.inv_std_err[c] = inv_err;
    for_channel(s, batch, c, [&](std::size_t i) {
      const double xhat = (x.v[i] - mean) * inv;
      f.y.v[i] = xhat * gamma[c] + beta[c];
      f.y.e[i] =
          std::abs(gamma[c]) * ((x.e[i] + mean_err) * inv + std::abs(x.v[i] - mean) * inv_err) +
          5 * eps * (std::abs(xhat * gamma[c]) + std::abs(beta[c]));
    });
  }
  return f;
}

BackwardResult batchnorm_backward(const Shape& in, std::size_t batch, const Array& x,
                                  const ForwardState& f, const Array& dy,
                                  const std::vector<double>& p) {
  const auto s = bn_sizes(in, batch);
  const double* gamma = p.data();
  const auto n = static_cast<double>(s.count);
  BackwardResult r;
  r.dx = zeros(x.size());
  r.dparams = zeros(4 * s.c);
  for (std::size_t c = 0; c < s.c; ++c) {
    const double mean = f.mean[c], inv = f.inv_std[c];
    auto xhat_err = [&](std::size_t i) {
      return (x.e[i] + f.mean_err[c]) * inv + std::abs(x.v[i] - mean) * f.inv_std_err[c] +
             2 * eps * std::abs((x.v[i] - mean) * inv);
    };
    double sdy = 0, sdy_terms = 0, sdy_err = 0, sdx = 0, sdx_terms = 0, sdx_err = 0;
    for_channel(s, batch, c, [&](std::size_t i) {
      const double xhat = (x.v[i] - mean) * inv;
      sdy += dy.v[i];
      sdy_terms += std::abs(dy.v[i]);
      sdy_err += dy.e[i];
      sdx += dy.v[i] * xhat;
      sdx_terms += std::abs(dy.v[i] * xhat);
      sdx_err += std::abs(xhat) * dy.e[i] + std::abs(dy.v[i]) * xhat_err(i);
    });
    sdy_err += (n + 2) * eps * sdy_terms;
    sdx_err += (n + 3) * eps * sdx_terms;
    r.dparams.v[c] = sdx;
    r.dparams.e[c] = sdx_err;
    r.dparams.v[s.c + c] = sdy;
    r.dparams.e[s.c + c] = sdy_err;
    const double scale = std::abs(gamma[c]) * inv / n;
    for_channel(s, batch, c, [&](std::size_t i) {
      const double xhat = (x.v[i] - mean) * inv;
      const double inner = n * dy.v[i] - sdy - xhat * sdx;
      r.dx.v[i] = gamma[c] * inv / n * inner;
      r.dx.e[i] =
          scale * (n * dy.e[i] + sdy_err + std::abs(xhat) * sdx_err + xhat_err(i) * std::abs(sdx)) +
          std::abs(gamma[c]) / n * f.inv_std_err[c] * std::abs(inner) +
          8 * eps * scale * (n * std::abs(dy.v[i]) + std::abs(sdy) + std::abs(xhat * sdx));
    });
  }
  return r;
}

bool is_activation(const Layer& layer) {
  using namespace gpgpu::nn;
  return std::holds_alternative<ReLU>(layer) || std::holds_alternative<Sigmoid>(layer) ||
         std::holds_alternative<Tanh>(layer) || std::holds_alternative<LeakyReLU>(layer) ||
         std::holds_alternative<Clip>(layer);
}

}  // namespace

Array Array::exact(const std::vector<float>& values) {
  Array a;
  a.v.assign(values.begin(), values.end());
  a.e.assign(values.size(), 0.0);
  return a;
}

ForwardState forward(const Layer& layer, const Shape& in, std::size_t batch, const Array& x,
                     const std::vector<double>& params, bool train) {
  using namespace gpgpu::nn;
  if (const auto* d = std::get_if<Dense>(&layer))
    return dense_forward(in[0], d->units, batch, x, params);
  if (const auto* c = std::get_if<Conv2D>(&layer))
    return conv_forward(conv_window(*c, in), batch, x, params);
  if (const auto* m = std::get_if<MaxPool2D>(&layer))
    return pool_forward(pool_window(*m, in), batch, x, true);
  if (const auto* a = std::get_if<AvgPool2D>(&layer))
    return pool_forward(avg_window(*a, in), batch, x, false);
  if (std::holds_alternative<GlobalAvgPool2D>(layer))
    return pool_forward(global_window(in), batch, x, false);
  if (const auto* b = std::get_if<BatchNorm>(&layer))
    return batchnorm_forward(*b, in, batch, x, params, train);
  if (std::holds_alternative<Softmax>(layer)) return softmax_forward(in[0], batch, x);
  if (is_activation(layer)) {
    return activation_forward(layer, x);
  }
  if (std::holds_alternative<Dropout>(layer) && train) {
    throw std::logic_error("nnref: dropout in training is random; test it by its properties");
  }
  ForwardState f;  // flatten, evaluation-time dropout: the identity
  f.y = x;
  return f;
}

BackwardResult backward(const Layer& layer, const Shape& in, std::size_t batch, const Array& x,
                        const ForwardState& fwd, const Array& dy, const std::vector<double>& params,
                        bool train) {
  using namespace gpgpu::nn;
  if (const auto* d = std::get_if<Dense>(&layer))
    return dense_backward(in[0], d->units, batch, x, dy, params);
  if (const auto* c = std::get_if<Conv2D>(&layer))
    return conv_backward(conv_window(*c, in), batch, x, dy, params);
  if (const auto* m = std::get_if<MaxPool2D>(&layer))
    return pool_backward(pool_window(*m, in), batch, x, dy, true);
  if (const auto* a = std::get_if<AvgPool2D>(&layer))
    return pool_backward(avg_window(*a, in), batch, x, dy, false);
  if (std::holds_alternative<GlobalAvgPool2D>(layer))
    return pool_backward(global_window(in), batch, x, dy, false);
  if (std::holds_alternative<BatchNorm>(layer)) {
    if (!train) throw std::logic_error("nnref: batch norm backward is for training mode");
    return batchnorm_backward(in, batch, x, fwd, dy, params);
  }
  if (std::holds_alternative<Softmax>(layer)) return softmax_backward(in[0], batch, fwd, dy);
  if (is_activation(layer)) {
    return activation_backward(layer, x, fwd, dy);
  }
  BackwardResult r;
  r.dx = dy;
  return r;
}

std::vector<double> layer_params(const gpgpu::nn::Sequential& model, std::size_t layer,
                                 const std::vector<float>& flat) {
  std::vector<double> p;
  for (const auto& info : model.parameters()) {
    if (info.layer != layer) continue;
    for (std::size_t i = 0; i < info.shape.size(); ++i) p.push_back(flat[info.offset + i]);
  }
  return p;
}

NetTrace net_forward(const gpgpu::nn::Sequential& model, std::size_t batch, const Array& x,
                     const std::vector<float>& flat, bool train) {
  NetTrace t;
  t.inputs.push_back(x);
  Shape in = model.input_shape();
  for (std::size_t i = 0; i < model.layers().size(); ++i) {
    t.states.push_back(forward(model.layers()[i], in, batch, t.inputs.back(),
                               layer_params(model, i, flat), train));
    t.inputs.push_back(t.states.back().y);
    in = model.shape_after(i);
  }
  return t;
}

NetGradients net_backward(const gpgpu::nn::Sequential& model, std::size_t batch,
                          const NetTrace& trace, const Array& dy, const std::vector<float>& flat,
                          bool train) {
  NetGradients g;
  g.flat = zeros(flat.size());
  Array grad = dy;
  for (std::size_t i = model.layers().size(); i-- > 0;) {
    const Shape in = i == 0 ? model.input_shape() : model.shape_after(i - 1);
    auto r = backward(model.layers()[i], in, batch, trace.inputs[i], trace.states[i], grad,
                      layer_params(model, i, flat), train);
    std::size_t k = 0;
    for (const auto& info : model.parameters()) {
      if (info.layer != i) continue;
      for (std::size_t j = 0; j < info.shape.size(); ++j, ++k) {
        if (!info.trainable) continue;
        g.flat.v[info.offset + j] = r.dparams.v[k];
        g.flat.e[info.offset + j] = r.dparams.e[k];
      }
    }
    grad = std::move(r.dx);
  }
  g.dx = std::move(grad);
  return g;
}

double mean_cross_entropy(const std::vector<double>& logits, const std::vector<int>& labels,
                          std::size_t classes, std::vector<double>* gradient) {
  const std::size_t batch = labels.size();
  double total = 0;
  if (gradient) gradient->assign(logits.size(), 0.0);
  for (std::size_t n = 0; n < batch; ++n) {
    const double* z = logits.data() + n * classes;
    const double largest = *std::max_element(z, z + classes);
    double sum = 0;
    for (std::size_t j = 0; j < classes; ++j) sum += std::exp(z[j] - largest);
    total += std::log(sum) - (z[labels[n]] - largest);
    if (gradient) {
      for (std::size_t j = 0; j < classes; ++j) {
        (*gradient)[n * classes + j] =
            (std::exp(z[j] - largest) / sum - (static_cast<int>(j) == labels[n] ? 1.0 : 0.0)) /
            static_cast<double>(batch);
      }
    }
  }
  return total / static_cast<double>(batch);
}

}  // namespace nnref
