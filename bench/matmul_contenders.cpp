// The contenders of the matmul benchmark (gpgpu's GL methods, gpgpu::cpu and the optional
// CUDA reference), and the float64 check of every result: the float32 dot-product error
// bound, per entry.
#include <cmath>
#include <functional>
#include <limits>
#include <span>

#include <fmt/format.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/cpu_matmul.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/matmul.hpp"
#include "matmul_runner.hpp"
#if GPGPU_BENCH_HAVE_CUDA
#include "cuda_matmul.hpp"
#endif

namespace gpgpu::bench::detail {

namespace {

std::vector<float> poisoned(int rows, int cols) {
  return std::vector<float>(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols),
                            std::numeric_limits<float>::quiet_NaN());
}

// A gpgpu method through MatmulPlan, with the tuning the library would choose itself.
std::string gl_unavailable(const Context& context, MatmulMethod method) {
  if (!matmul_method_implemented(method)) return "not implemented yet";
  const bool fragment =
      method == MatmulMethod::FragmentNaive || method == MatmulMethod::FragmentPacked;
  if (fragment && !context.info().has_color_buffer_float()) {
    return "the device cannot render to float textures (no GL_EXT_color_buffer_float)";
  }
  return {};
}

Measurement gl_measure(Context& context, MatmulMethod method, const BenchProblem& p,
                       const Budget& budget) {
  MatmulOptions options;
  options.method = method;
  MatmulPlan plan(context, p.m, p.k, p.n, options);  // compiles outside the timing
  Measurement out;
  if (method == MatmulMethod::ComputeRegisterBlocked) out.detail = plan.tuning().to_string();
  if (method == MatmulMethod::ComputeTiled) out.detail = fmt::format("tile {}", plan.tuning().tile);

  const auto a = Buffer::from(context, p.a);
  const auto b = Buffer::from(context, p.b);
  Buffer c = Buffer::from(context, poisoned(p.m, p.n));
  // llvmpipe answers timer queries without seeing the shader's work (it runs on the CPU
  // threads), so there the wall clock around dispatch + glFinish is the kernel time.
  const bool gpu_timer = !context.info().is_software && context.info().has_timer_query();
  plan.set_timing(gpu_timer);
  bool fell_back = false;
  Budget half = budget;
  half.max_seconds = budget.max_seconds / 2;
  out.kernel_ms = sample(
      half,
      [&] {
        const auto start = Clock::now();
        plan.run(a, b, c);
        if (gpu_timer && plan.last_gpu_ns() > 0) return plan.last_gpu_ns() / 1e6;
        fell_back = fell_back || gpu_timer;
        context.finish();
        return ms_since(start);
      },
      &out.kernel_cpu_ms);
  out.kernel_clock = !gpu_timer ? "wall_glfinish" : fell_back ? "mixed" : "gl_time_elapsed";
  out.results.push_back(c.to_vector<float>());

  // End to end: what a user of matmul(ctx, host a, host b, host c) waits for.
  auto host_c = poisoned(p.m, p.n);
  half.warmup = 0;  // the program is warm
  out.wall_ms = wall_times(half, [&] {
    plan.run(std::span<const float>(p.a), std::span<const float>(p.b), std::span<float>(host_c));
  });
  out.results.push_back(std::move(host_c));
  return out;
}

using CpuFunction = void (*)(std::span<const float>, std::span<const float>, std::span<float>, int,
                             int, int);

// A gpgpu::cpu function: nothing to upload, so its kernel and end-to-end times are one.
Measurement cpu_measure(CpuFunction function, const std::string& detail, const BenchProblem& p,
                        const Budget& budget) {
  Measurement out;
  out.detail = detail;
  auto c = poisoned(p.m, p.n);
  out.kernel_ms = out.wall_ms = wall_times(
      budget, [&] { function(p.a, p.b, c, p.m, p.k, p.n); }, &out.kernel_cpu_ms);
  out.kernel_clock = "wall";
  out.results.push_back(std::move(c));
  return out;
}

// The CUDA reference: it warms up and repeats itself, timing with cudaEvents. Listed even where
// CUDA was not built, so that asking for it gets a clear answer.
std::string cuda_unavailable() {
#if GPGPU_BENCH_HAVE_CUDA
  std::string why;
  if (!cuda_ref::available(&why)) return why.empty() ? "no CUDA device" : why;
  return {};
#else
  return "this build has no CUDA reference (configure with a CUDA toolkit; GPGPU_CUDA)";
#endif
}

Measurement cuda_measure([[maybe_unused]] int method, [[maybe_unused]] const BenchProblem& p,
                         [[maybe_unused]] const Budget& budget) {
#if GPGPU_BENCH_HAVE_CUDA
  Measurement out;
  auto c = poisoned(p.m, p.n);
  const auto t = cuda_ref::matmul(static_cast<cuda_ref::Method>(method), p.a, p.b, c, p.m, p.k, p.n,
                                  budget.warmup, std::max(1, budget.repeats));
  out.kernel_ms = {t.kernel_ms_median};
  out.wall_ms = {t.end_to_end_ms_median};
  out.kernel_clock = "cuda_event";
  out.detail = cuda_ref::device_name();
  out.results.push_back(std::move(c));
  return out;
#else
  throw UnsupportedError("CUDA reference not built");
#endif
}

const char* const cuda_names[] = {"cuda_cublas", "cuda_naive", "cuda_tiled"};  // Method's order

}  // namespace

std::vector<std::string> contender_names() {
  std::vector<std::string> names;
  for (MatmulMethod method : all_matmul_methods()) names.emplace_back(to_string(method));
  for (const char* name : {"cpu_naive", "cpu_openmp", "cpu_openmp_transposed", "cpu_openblas"}) {
    names.emplace_back(name);
  }
  names.insert(names.end(), std::begin(cuda_names), std::end(cuda_names));
  return names;
}

Contender make_contender(const std::string& name, gpgpu::Context& context) {
  using namespace std::placeholders;
  if (auto method = parse_matmul_method(name); method && *method != MatmulMethod::Auto) {
    return {name, "gl", gl_unavailable(context, *method),
            std::bind(gl_measure, std::ref(context), *method, _1, _2)};
  }
  const auto cpu = [&](CpuFunction function, const std::string& detail) {
    return Contender{name, "cpu", "", std::bind(cpu_measure, function, detail, _1, _2)};
  };
  if (name == "cpu_naive") return cpu(cpu::matmul_naive, "1 thread");
  if (name == "cpu_openmp") return cpu(cpu::matmul_openmp, "OpenMP");
  if (name == "cpu_openmp_transposed")
    return cpu(cpu::matmul_openmp_transposed, "OpenMP, B transposed in the call");
  if (name == "cpu_openblas")
    return cpu(cpu::matmul_openblas, fmt::format("{} threads", cpu::openblas_threads()));
  for (int m = 0; m < 3; ++m) {
    if (name == cuda_names[m])
      return {name, "cuda", cuda_unavailable(), std::bind(cuda_measure, m, _1, _2)};
  }
  throw ArgumentError(fmt::format("matmul bench: unknown method '{}'; the methods are {}", name,
                                  fmt::join(contender_names(), ", ")));
}

namespace {

constexpr double eps32 = 0x1p-24;

std::vector<float> absolute(const std::vector<float>& v) {
  std::vector<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = std::fabs(v[i]);
  return out;
}

}  // namespace

CheckPlan make_check_plan(const BenchProblem& p, int full_max_n, int samples, std::mt19937& rng) {
  CheckPlan plan;
  const auto mn = static_cast<std::size_t>(p.m) * static_cast<std::size_t>(p.n);
  if (p.m <= full_max_n && p.n <= full_max_n && p.k <= full_max_n) {
    plan.full = true;
    plan.exact.resize(mn);
    plan.magnitude.resize(mn);
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

CheckResult check_result(const CheckPlan& plan, const BenchProblem& p, std::span<const float> c) {
  CheckResult r;
  r.kind = plan.full ? "full" : "sampled";
  r.bound = p.k + 2.0;
  double max_exact = 0;
  const std::size_t count = plan.exact.size();
  for (std::size_t e = 0; e < count; ++e) {
    std::size_t index = e;
    if (!plan.full) {
      index = static_cast<std::size_t>(plan.entries[e].first) * static_cast<std::size_t>(p.n) +
              static_cast<std::size_t>(plan.entries[e].second);
    }
    const double got = c[index];
    const double exact = plan.exact[e];
    const double error = std::fabs(got - exact);
    const double scale = eps32 * plan.magnitude[e];
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

CheckResult worst_of(const CheckResult& x, const CheckResult& y) {
  CheckResult r = x;
  r.ok = x.ok && y.ok;
  r.checked = x.checked + y.checked;
  r.wrong = x.wrong + y.wrong;
  r.max_abs_error = std::fmax(x.max_abs_error, y.max_abs_error);
  r.relative_error = std::fmax(x.relative_error, y.relative_error);
  r.worst_normalised = std::fmax(x.worst_normalised, y.worst_normalised);
  if (r.first_wrong.empty()) r.first_wrong = y.first_wrong;
  return r;
}

}  // namespace gpgpu::bench::detail
