// `gpgpu info --features`: runs each of gpgpu's features once, small, on the chosen device
// (under its device-limit profile, if any) and says which work, which adapt, and which are
// refused and why. Every result that runs is checked against the host's, so "works" means
// a right answer, not only no error.
#include "info_features.hpp"

#include <cmath>
#include <functional>
#include <numeric>
#include <random>

#include <fmt/format.h>

#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/earth/cases.hpp"
#include "gpgpu/earth/grid.hpp"
#include "gpgpu/earth/model.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/fragment_kernel.hpp"
#include "gpgpu/matmul.hpp"
#include "gpgpu/nn/nets.hpp"
#include "gpgpu/primitives.hpp"
#include "gpgpu/transform_feedback_kernel.hpp"

namespace gpgpu::cli {

namespace {

std::vector<float> random_floats(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

// Within `bound` of `expected` everywhere (relative to the magnitudes involved).
bool close(const std::vector<float>& got, const std::vector<double>& expected, double bound) {
  if (got.size() != expected.size()) return false;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!(std::abs(got[i] - expected[i]) <= bound * (1.0 + std::abs(expected[i])))) return false;
  }
  return true;
}

FeatureResult checked(bool right, std::string what) {
  return right ? FeatureResult{FeatureStatus::Works, std::move(what)}
               : FeatureResult{FeatureStatus::Wrong, std::move(what) + ": WRONG RESULT"};
}

FeatureResult compute_kernel(const Context& ctx) {
  ComputeKernel square(ctx, R"(
    layout(local_size_x = gpgpu_group_size) in;
    layout(std430, binding = 0) buffer A { float a[]; };
    void main() { uint i = gpgpu_index(); if (i < gpgpu_count) a[i] = a[i] * a[i]; })");
  auto a = random_floats(1000, 1);
  std::vector<double> expected(a.begin(), a.end());
  for (auto& e : expected) e *= e;
  square.run({{"a", a}});
  return checked(close(a, expected, 1e-6),
                 fmt::format("work groups of up to {} invocations",
                             ctx.info().max_compute_work_group_invocations));
}

FeatureResult transform_feedback(const Context& ctx) {
  TransformFeedbackKernel add(ctx, R"(
    in float A; in float B; out float C; out float D; out float E; out float F; out float G;
    void main() { C = A + B; D = A * B; E = A - B; F = B; G = A; })");
  auto a = random_floats(300, 2), b = random_floats(300, 3);
  std::vector<float> c(300), d(300), e(300), f(300), g(300);
  add.run({{"A", a}, {"B", b}, {"C", c}, {"D", d}, {"E", e}, {"F", f}, {"G", g}});
  bool right = true;
  for (std::size_t i = 0; i < a.size(); ++i) {
    right = right && c[i] == a[i] + b[i] && d[i] == a[i] * b[i] && e[i] == a[i] - b[i] &&
            f[i] == b[i] && g[i] == a[i];
  }
  const bool separate = ctx.info().max_transform_feedback_separate_attribs >= 5;
  return checked(right, separate ? "5 outputs captured into separate buffers"
                                 : "5 outputs captured interleaved, then split (more than "
                                   "GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_ATTRIBS)");
}

FeatureResult fragment(const Context& ctx, bool float_output) {
  const std::string source = float_output
                                 ? "out float C; void main() { C = float(gpgpu_index()) * 0.5; }"
                                 : "out int C; void main() { C = int(gpgpu_index()) * 3; }";
  FragmentKernel k(ctx, source);
  if (float_output) {
    std::vector<float> c(1000);
    k.run({{"C", c}});
    bool right = true;
    for (std::size_t i = 0; i < c.size(); ++i) right = right && c[i] == 0.5f * static_cast<float>(i);
    return checked(right, "float render targets");
  }
  std::vector<std::int32_t> c(1000);
  k.run({{"C", c}});
  bool right = true;
  for (std::size_t i = 0; i < c.size(); ++i) right = right && c[i] == 3 * static_cast<int>(i);
  return checked(right, "integer render targets");
}

FeatureResult matmul_method(const Context& ctx, MatmulMethod method) {
  const int m = 67, k = 45, n = 53;
  auto a = random_floats(m * k, 4), b = random_floats(k * n, 5);
  std::vector<double> expected(m * n, 0.0);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      for (int t = 0; t < k; ++t) expected[i * n + j] += double(a[i * k + t]) * b[t * n + j];
    }
  }
  std::vector<float> c(m * n);
  MatmulOptions options;
  options.method = method;
  matmul(ctx, a, b, c, m, k, n, options);
  return checked(close(c, expected, 64 * 6e-8), "67 x 45 x 53");
}

FeatureResult primitives_check(const Context& ctx) {
  const std::size_t n = 100'003;
  std::vector<std::uint32_t> keys(n);
  std::mt19937 rng(6);
  for (auto& key : keys) key = static_cast<std::uint32_t>(rng());
  std::vector<std::uint32_t> sorted = keys;
  sort(ctx, std::span<std::uint32_t>(sorted));
  std::vector<std::uint32_t> expected = keys;
  std::sort(expected.begin(), expected.end());
  std::vector<std::uint32_t> small(n);
  for (std::size_t i = 0; i < n; ++i) small[i] = keys[i] % 7;
  const auto scanned = inclusive_scan(ctx, std::span<const std::uint32_t>(small));
  std::vector<std::uint32_t> scan_expected(n);
  std::inclusive_scan(small.begin(), small.end(), scan_expected.begin());
  const std::uint32_t total = reduce(ctx, std::span<const std::uint32_t>(small));
  return checked(sorted == expected && scanned == scan_expected && total == scan_expected.back(),
                 "sort, scan and reduce of 100,003 keys");
}

FeatureResult nn_inference(const Context& ctx, nn::Backend backend) {
  auto recipe = nn::builtin_net(ctx, "cnn", {1, 28, 28}, 10);
  recipe.model.set_backend(nn::Backend::Cpu);
  const auto x = nn::Tensor::from(ctx, {4, 1, 28, 28}, random_floats(4 * 28 * 28, 7));
  const auto expected = recipe.model.forward(x).to_vector();
  recipe.model.set_backend(backend);
  const auto got = recipe.model.forward(x).to_vector();
  std::vector<double> reference(expected.begin(), expected.end());
  return checked(close(got, reference, 1e-3), "the cnn net, 4 images, against the cpu backend");
}

FeatureResult earth_step(const Context& ctx) {
  const earth::Grid grid = earth::build_grid({.level = 3});
  earth::Model model(ctx, grid, earth::make_case(2));
  model.run(3600.0);
  const auto sums = model.sums();
  return checked(std::isfinite(sums.mass) && sums.mass > 0, "case 2 at level 3, one hour");
}

FeatureResult attempt(const std::function<FeatureResult()>& probe) {
  try {
    return probe();
  } catch (const DeviceLimitError& e) {
    return {FeatureStatus::Refused, e.what()};
  } catch (const UnsupportedError& e) {
    return {FeatureStatus::Refused, e.what()};
  } catch (const LimitError& e) {
    return {FeatureStatus::Refused, e.what()};
  } catch (const Error& e) {
    return {FeatureStatus::Wrong, std::string("unexpected error: ") + e.what()};
  }
}

}  // namespace

std::string_view to_string(FeatureStatus status) {
  switch (status) {
    case FeatureStatus::Works:
      return "works";
    case FeatureStatus::Refused:
      return "refused";
    case FeatureStatus::Wrong:
      return "WRONG";
  }
  return "?";
}

std::vector<Feature> probe_features(const Context& ctx) {
  std::vector<Feature> out;
  const auto add = [&](std::string name, const std::function<FeatureResult()>& probe) {
    out.push_back({std::move(name), attempt(probe)});
  };
  add("compute kernels", [&] { return compute_kernel(ctx); });
  add("transform feedback", [&] { return transform_feedback(ctx); });
  add("fragment kernels, integer outputs", [&] { return fragment(ctx, false); });
  add("fragment kernels, float outputs", [&] { return fragment(ctx, true); });
  for (const MatmulMethod m : all_matmul_methods()) {
    if (!matmul_method_implemented(m)) continue;
    add(fmt::format("matmul {}", to_string(m)), [&] { return matmul_method(ctx, m); });
  }
  add("primitives", [&] { return primitives_check(ctx); });
  for (const auto b : {nn::Backend::Compute, nn::Backend::TransformFeedback}) {
    add(fmt::format("nn inference, {} backend", nn::to_string(b)),
        [&] { return nn_inference(ctx, b); });
  }
  add("earth model", [&] { return earth_step(ctx); });
  return out;
}

}  // namespace gpgpu::cli
