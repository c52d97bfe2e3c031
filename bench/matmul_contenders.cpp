// The contenders of the matmul benchmark: gpgpu's GL methods, gpgpu::cpu and the optional
// CUDA reference.
#include "matmul_contenders.hpp"

#include <sys/resource.h>

#include <chrono>
#include <cmath>
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

using Clock = std::chrono::steady_clock;

// User + system CPU time of the whole process (every thread) in milliseconds.
double process_cpu_ms() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto ms = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3;
  };
  return ms(usage.ru_utime) + ms(usage.ru_stime);
}

double elapsed_ms(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::size_t elements(int rows, int cols) {
  return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
}

std::vector<float> poisoned(std::size_t count) {
  return std::vector<float>(count, std::numeric_limits<float>::quiet_NaN());
}

// A gpgpu method through MatmulPlan, with the tuning the library would choose itself.
class GlContender final : public Contender {
 public:
  GlContender(gpgpu::Context& context, MatmulMethod method)
      : Contender(std::string(to_string(method)), "gl"), context_(context), method_(method) {}

  std::string unavailable_reason() const override {
    if (!matmul_method_implemented(method_)) return "not implemented yet";
    const bool fragment =
        method_ == MatmulMethod::FragmentNaive || method_ == MatmulMethod::FragmentPacked;
    if (fragment && !context_.info().has_color_buffer_float()) {
      return "the device cannot render to float textures (no GL_EXT_color_buffer_float)";
    }
    return {};
  }

  Measurement measure(const BenchProblem& p, const RunBudget& budget) override {
    MatmulOptions options;
    options.method = method_;
    MatmulPlan plan(context_, p.m, p.k, p.n, options);  // compiles outside the timing
    Measurement out;
    if (method_ == MatmulMethod::ComputeRegisterBlocked) out.detail = plan.tuning().to_string();
    if (method_ == MatmulMethod::ComputeTiled)
      out.detail = fmt::format("tile {}", plan.tuning().tile);

    const auto a = Buffer::from(context_, p.a);
    const auto b = Buffer::from(context_, p.b);
    Buffer c(context_, ElementType::Float32, elements(p.m, p.n));
    c.upload(poisoned(c.size()));
    // llvmpipe answers timer queries without seeing the shader's work (it runs on the CPU
    // threads), so there the wall clock around dispatch + glFinish is the kernel time.
    const bool gpu_timer = !context_.info().is_software && context_.info().has_timer_query();
    plan.set_timing(gpu_timer);
    bool fell_back = false;
    RunBudget half = budget;
    half.max_seconds = budget.max_seconds / 2;
    out.kernel_ms = timed_runs(
        half,
        [&] {
          const auto start = Clock::now();
          plan.run(a, b, c);
          if (gpu_timer && plan.last_gpu_ns() > 0) return plan.last_gpu_ns() / 1e6;
          fell_back = fell_back || gpu_timer;
          context_.finish();
          return elapsed_ms(start);
        },
        &out.kernel_cpu_ms);
    out.kernel_clock = !gpu_timer ? "wall_glfinish" : fell_back ? "mixed" : "gl_time_elapsed";
    out.results.push_back(c.to_vector<float>());

    // End to end: what a user of matmul(ctx, host a, host b, host c) waits for.
    auto host_c = poisoned(elements(p.m, p.n));
    half.warmup = 0;  // the program is warm
    out.wall_ms = timed_runs(half, [&] {
      const auto start = Clock::now();
      plan.run(std::span<const float>(p.a), std::span<const float>(p.b), std::span<float>(host_c));
      return elapsed_ms(start);
    });
    out.results.push_back(std::move(host_c));
    return out;
  }

 private:
  gpgpu::Context& context_;
  MatmulMethod method_;
};

using CpuFunction = void (*)(std::span<const float>, std::span<const float>, std::span<float>, int,
                             int, int);

// A gpgpu::cpu function: nothing to upload, so its kernel and end-to-end times are one.
class CpuContender final : public Contender {
 public:
  CpuContender(std::string name, CpuFunction function, std::string detail)
      : Contender(std::move(name), "cpu"), function_(function), detail_(std::move(detail)) {}

  Measurement measure(const BenchProblem& p, const RunBudget& budget) override {
    Measurement out;
    out.detail = detail_;
    auto c = poisoned(elements(p.m, p.n));
    out.kernel_ms = timed_runs(
        budget,
        [&] {
          const auto start = Clock::now();
          function_(p.a, p.b, c, p.m, p.k, p.n);
          return elapsed_ms(start);
        },
        &out.kernel_cpu_ms);
    out.wall_ms = out.kernel_ms;
    out.kernel_clock = "wall";
    out.results.push_back(std::move(c));
    return out;
  }

 private:
  CpuFunction function_;
  std::string detail_;
};

#if GPGPU_BENCH_HAVE_CUDA
class CudaContender final : public Contender {
 public:
  CudaContender(std::string name, cuda_ref::Method method)
      : Contender(std::move(name), "cuda"), method_(method) {}

  std::string unavailable_reason() const override {
    std::string why;
    if (!cuda_ref::available(&why)) return why.empty() ? "no CUDA device" : why;
    return {};
  }

  Measurement measure(const BenchProblem& p, const RunBudget& budget) override {
    Measurement out;
    auto c = poisoned(elements(p.m, p.n));
    // The reference warms up and repeats itself, timing with cudaEvents.
    const auto t = cuda_ref::matmul(method_, p.a, p.b, c, p.m, p.k, p.n, budget.warmup,
                                    std::max(1, budget.repeats));
    out.kernel_ms = {t.kernel_ms_median};
    out.wall_ms = {t.end_to_end_ms_median};
    out.kernel_clock = "cuda_event";
    out.detail = cuda_ref::device_name();
    out.results.push_back(std::move(c));
    return out;
  }

 private:
  cuda_ref::Method method_;
};
#else
// Listed even where CUDA was not built, so that asking for it gets a clear answer.
class CudaContender final : public Contender {
 public:
  explicit CudaContender(std::string name) : Contender(std::move(name), "cuda") {}
  std::string unavailable_reason() const override {
    return "this build has no CUDA reference (configure with a CUDA toolkit; GPGPU_CUDA)";
  }
  Measurement measure(const BenchProblem&, const RunBudget&) override {
    throw UnsupportedError("CUDA reference not built");
  }
};
#endif

}  // namespace

std::vector<std::string> contender_names() {
  std::vector<std::string> names;
  for (MatmulMethod method : all_matmul_methods()) names.emplace_back(to_string(method));
  for (const char* name : {"cpu_naive", "cpu_openmp", "cpu_openmp_transposed", "cpu_openblas",
                           "cuda_cublas", "cuda_naive", "cuda_tiled"}) {
    names.emplace_back(name);
  }
  return names;
}

std::unique_ptr<Contender> make_contender(const std::string& name, gpgpu::Context& context) {
  if (auto method = parse_matmul_method(name); method && *method != MatmulMethod::Auto) {
    return std::make_unique<GlContender>(context, *method);
  }
  if (name == "cpu_naive") {
    return std::make_unique<CpuContender>(name, cpu::matmul_naive, "1 thread");
  }
  if (name == "cpu_openmp") {
    return std::make_unique<CpuContender>(name, cpu::matmul_openmp, "OpenMP");
  }
  if (name == "cpu_openmp_transposed") {
    return std::make_unique<CpuContender>(name, cpu::matmul_openmp_transposed,
                                          "OpenMP, B transposed in the call");
  }
  if (name == "cpu_openblas") {
    return std::make_unique<CpuContender>(name, cpu::matmul_openblas,
                                          fmt::format("{} threads", cpu::openblas_threads()));
  }
#if GPGPU_BENCH_HAVE_CUDA
  if (name == "cuda_cublas") return std::make_unique<CudaContender>(name, cuda_ref::Method::Cublas);
  if (name == "cuda_naive")
    return std::make_unique<CudaContender>(name, cuda_ref::Method::NaiveKernel);
  if (name == "cuda_tiled")
    return std::make_unique<CudaContender>(name, cuda_ref::Method::TiledKernel);
#else
  if (name == "cuda_cublas" || name == "cuda_naive" || name == "cuda_tiled") {
    return std::make_unique<CudaContender>(name);
  }
#endif
  throw ArgumentError(fmt::format("matmul bench: unknown method '{}'; the methods are {}", name,
                                  fmt::join(contender_names(), ", ")));
}

std::vector<double> timed_runs(const RunBudget& budget, const std::function<double()>& run,
                               std::vector<double>* cpu_ms) {
  for (int i = 0; i < budget.warmup; ++i) run();
  std::vector<double> times;
  double total_ms = 0;
  while (times.empty() ||
         (static_cast<int>(times.size()) < budget.repeats && total_ms < budget.max_seconds * 1e3)) {
    const double cpu_start = process_cpu_ms();
    times.push_back(run());
    if (cpu_ms != nullptr) cpu_ms->push_back(process_cpu_ms() - cpu_start);
    total_ms += times.back();
  }
  return times;
}

}  // namespace gpgpu::bench::detail
