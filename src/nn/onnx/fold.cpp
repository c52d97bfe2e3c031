// Folding constant affine maps and batch normalisation into neighbouring layers
// (steps.hpp). All arithmetic is in float64 on the file's float32 values; each parameter is
// rounded to float32 once, at the end.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "steps.hpp"

namespace gpgpu::nn::onnx_detail {

namespace {

bool is_linear(const Step& s) {
  const Layer* l = s.layer();
  return l && (std::holds_alternative<Conv2D>(*l) || std::holds_alternative<Dense>(*l));
}

template <class T>
bool holds(const Step& s) {
  const Layer* l = s.layer();
  return l && std::holds_alternative<T>(*l);
}

double at(const std::vector<double>& v, std::size_t i) {
  return v.size() == 1 ? v[0] : v[i];
}

// A BatchNorm in evaluation as an affine map: scale = gamma / sqrt(var + eps), shift = beta
// - mean scale.
Affine batchnorm_affine(const Step& s) {
  const double eps = std::get<BatchNorm>(*s.layer()).epsilon;
  const auto& p = s.params;
  Affine a;
  a.scale.resize(p[0].size());
  a.shift.resize(p[0].size());
  for (std::size_t c = 0; c < p[0].size(); ++c) {
    a.scale[c] = p[0][c] / std::sqrt(p[3][c] + eps);
    a.shift[c] = p[1][c] - p[2][c] * a.scale[c];
  }
  return a;
}

// second(first(x)).
Affine compose(const Affine& first, const Affine& second) {
  const std::size_t n =
      std::max({first.scale.size(), first.shift.size(), second.scale.size(), second.shift.size()});
  Affine a;
  a.scale.resize(n);
  a.shift.resize(n);
  for (std::size_t c = 0; c < n; ++c) {
    a.scale[c] = at(first.scale, c) * at(second.scale, c);
    a.shift[c] = at(first.shift, c) * at(second.scale, c) + at(second.shift, c);
  }
  return a;
}

// The affine map applied to the output of a Conv2D or Dense: every output row scaled.
void fold_after(Step& linear, const Affine& a) {
  auto& w = linear.params[0];
  auto& b = linear.params[1];
  const std::size_t outputs = b.size(), per = w.size() / outputs;
  for (std::size_t o = 0; o < outputs; ++o) {
    for (std::size_t j = 0; j < per; ++j) w[o * per + j] *= at(a.scale, o);
    b[o] = b[o] * at(a.scale, o) + at(a.shift, o);
  }
}

// The affine map applied to the input of a Conv2D or Dense, whose input element j belongs
// to channel channel_of(j): w' = w scale, b' = b + sum_j w_j shift.
template <class ChannelOf>
void fold_before(Step& linear, const Affine& a, ChannelOf channel_of) {
  auto& w = linear.params[0];
  auto& b = linear.params[1];
  const std::size_t outputs = b.size(), per = w.size() / outputs;
  for (std::size_t o = 0; o < outputs; ++o) {
    for (std::size_t j = 0; j < per; ++j) {
      const std::size_t c = channel_of(j);
      b[o] += w[o * per + j] * at(a.shift, c);
      w[o * per + j] *= at(a.scale, c);
    }
  }
}

bool no_shift(const Affine& a) {
  for (double t : a.shift) {
    if (t != 0.0) return false;
  }
  return true;
}

// Folds steps[i] (an affine map) into a later Conv2D or Dense if one takes its values as
// they are; true when it did.
bool fold_into_next(std::vector<Step>& steps, std::size_t i) {
  const Affine& a = std::get<Affine>(steps[i].what);
  const Shape& shape = steps[i].in;
  std::size_t next = i + 1;
  if (next < steps.size() && holds<Flatten>(steps[next])) ++next;
  if (next >= steps.size()) return false;
  Step& target = steps[next];
  const std::size_t plane = shape.rank() == 3 ? shape[1] * shape[2] : 1;
  if (holds<Conv2D>(target) && next == i + 1) {
    // Zero padding stays zero under a scale but not under a shift.
    if (padding_of(std::get<Conv2D>(*target.layer())) != Padding{} && !no_shift(a)) return false;
    const std::size_t taps = target.params[0].size() / target.params[1].size() / shape[0];
    fold_before(target, a, [&](std::size_t j) { return j / taps; });
    return true;
  }
  if (holds<Dense>(target)) {
    fold_before(target, a, [&](std::size_t j) { return shape.rank() == 3 ? j / plane : j; });
    return true;
  }
  return false;
}

// An affine map as a BatchNorm layer that computes it in evaluation: mean 0, variance 1,
// epsilon 1e-12 (1 + epsilon rounds to 1 in float32), gamma the scale, beta the shift;
// momentum 0 keeps the map through training-mode passes.
void as_batchnorm(Step& s) {
  const Affine a = std::get<Affine>(s.what);
  const std::size_t channels = s.in[0];
  const double eps = 1e-12;
  std::vector<double> gamma(channels), beta(channels);
  for (std::size_t c = 0; c < channels; ++c) {
    gamma[c] = at(a.scale, c) * std::sqrt(1.0 + eps);
    beta[c] = at(a.shift, c);
  }
  s.what = Layer{BatchNorm{0.0f, static_cast<float>(eps)}};
  s.params = {gamma, beta, std::vector<double>(channels, 0.0), std::vector<double>(channels, 1.0)};
}

}  // namespace

void fold_steps(std::vector<Step> steps, bool fold_batchnorm, Network& network) {
  for (std::size_t i = 1; i < steps.size(); ++i) {
    if (fold_batchnorm && holds<BatchNorm>(steps[i]) && is_linear(steps[i - 1])) {
      steps[i].what = batchnorm_affine(steps[i]);
      steps[i].params.clear();
    }
  }
  std::vector<Step> kept;
  for (auto& s : steps) {
    const bool affine = std::holds_alternative<Affine>(s.what);
    if (affine && !kept.empty() && std::holds_alternative<Affine>(kept.back().what)) {
      kept.back().what = compose(std::get<Affine>(kept.back().what), std::get<Affine>(s.what));
    } else if (affine && !kept.empty() && is_linear(kept.back())) {
      fold_after(kept.back(), std::get<Affine>(s.what));
    } else {
      kept.push_back(std::move(s));
    }
  }
  steps.clear();
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (!std::holds_alternative<Affine>(kept[i].what)) {
      steps.push_back(std::move(kept[i]));
    } else if (!fold_into_next(kept, i)) {
      as_batchnorm(kept[i]);
      steps.push_back(std::move(kept[i]));
    }
  }
  for (const auto& s : steps) {
    network.layers.push_back(*s.layer());
    std::vector<float> flat;
    for (const auto& p : s.params) {
      for (double v : p) {
        if (!(std::abs(v) <= std::numeric_limits<float>::max())) {
          throw UnsupportedError(
              fmt::format("{}: a parameter of its {} is {} (after folding), beyond float32",
                          s.origin, layer_type(*s.layer()), v));
        }
        flat.push_back(static_cast<float>(v));
      }
    }
    network.params.push_back(std::move(flat));
  }
}

}  // namespace gpgpu::nn::onnx_detail
