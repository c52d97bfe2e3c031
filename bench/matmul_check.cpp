// The float64 check of the matmul benchmark's results (matmul_runner.hpp): the float32
// dot-product error bound, per entry.
#include <cmath>

#include <fmt/format.h>

#include "gpgpu/cpu_matmul.hpp"
#include "matmul_runner.hpp"

namespace gpgpu::bench::detail {

BenchProblem make_problem(int n, std::uint32_t seed) {
  BenchProblem p{n, n, n, {}, {}};
  std::mt19937 rng(seed ^ (0x9E3779B9u * static_cast<std::uint32_t>(n)));
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (auto* v : {&p.a, &p.b}) {
    v->resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
    for (float& x : *v) x = value(rng);
  }
  return p;
}

CheckPlan make_check_plan(const BenchProblem& p, int full_max_n, int samples, std::mt19937& rng) {
  CheckPlan plan;
  const auto mn = static_cast<std::size_t>(p.m) * static_cast<std::size_t>(p.n);
  if (p.m <= full_max_n && p.n <= full_max_n && p.k <= full_max_n) {
    plan.full = true;
    plan.exact.resize(mn);
    plan.magnitude.resize(mn);
    const auto absolute = [](std::vector<float> v) {
      for (float& x : v) x = std::fabs(x);
      return v;
    };
    cpu::matmul_reference_f64(p.a, p.b, plan.exact, p.m, p.k, p.n);
    cpu::matmul_reference_f64(absolute(p.a), absolute(p.b), plan.magnitude, p.m, p.k, p.n);
    return plan;
  }
  plan.entries = {{0, 0}, {0, p.n - 1}, {p.m - 1, 0}, {p.m - 1, p.n - 1}};
  std::uniform_int_distribution<int> row(0, p.m - 1), col(0, p.n - 1);
  for (int s = 0; s < samples; ++s) plan.entries.emplace_back(row(rng), col(rng));
  for (const auto& [r, c] : plan.entries) {
    plan.exact.push_back(cpu::reference_entry_f64(p.a, p.b, p.k, p.n, r, c));
    // Products of floats are exact in double; their absolute sum needs no care.
    double magnitude = 0;
    for (int i = 0; i < p.k; ++i) {
      magnitude += std::fabs(static_cast<double>(p.a[static_cast<std::size_t>(r) * p.k + i]) *
                             p.b[static_cast<std::size_t>(i) * p.n + c]);
    }
    plan.magnitude.push_back(magnitude);
  }
  return plan;
}

// Added to `r`, the relative error stays the worst output's: every output of one problem has
// the same float64 values, so the same max |c64|.
CheckResult check_result(const CheckPlan& plan, const BenchProblem& p, std::span<const float> c,
                         CheckResult r) {
  r.kind = plan.full ? "full" : "sampled";
  r.bound = p.k + 2.0;
  double max_exact = 0;
  for (std::size_t e = 0; e < plan.exact.size(); ++e) {
    const std::size_t index = plan.full ? e
                                        : static_cast<std::size_t>(plan.entries[e].first) *
                                                  static_cast<std::size_t>(p.n) +
                                              static_cast<std::size_t>(plan.entries[e].second);
    const double got = c[index];
    const double exact = plan.exact[e];
    const double error = std::fabs(got - exact);
    const double scale = 0x1p-24 * plan.magnitude[e];  // eps32 * sum_i |a_ri b_ic|
    // An exact zero scale means every product was 0: the only right answer is 0.
    const double normalised = scale > 0 ? error / scale : (error == 0 ? 0.0 : INFINITY);
    ++r.checked;
    max_exact = std::fmax(max_exact, std::fabs(exact));
    if (!std::isfinite(got) || !(normalised <= r.bound)) {
      if (r.wrong++ == 0) {
        r.first_wrong =
            fmt::format("C[{}][{}] = {}, float64 {}", index / p.n, index % p.n, got, exact);
      }
      if (!std::isfinite(got)) {
        r.max_abs_error = INFINITY;
        r.worst_normalised = INFINITY;
        continue;
      }
    }
    r.max_abs_error = std::fmax(r.max_abs_error, error);
    r.worst_normalised = std::fmax(r.worst_normalised, normalised);
  }
  r.ok = r.wrong == 0;
  r.relative_error = max_exact > 0 ? r.max_abs_error / max_exact : r.max_abs_error;
  return r;
}

}  // namespace gpgpu::bench::detail
