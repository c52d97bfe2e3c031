// The contenders of the matmul benchmark: gpgpu's GL methods, gpgpu::cpu and the optional
// CUDA reference.
#include "matmul_internal.hpp"

#include <functional>
#include <limits>
#include <span>

#include <fmt/format.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/cpu_matmul.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/matmul.hpp"
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

}  // namespace gpgpu::bench::detail
