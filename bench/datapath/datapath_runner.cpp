// `gpgpu bench datapath` (datapath_runner.hpp): sizes for the device, then each benchmark on
// one harness Session. matmul: C = A B from host arrays end to end (what a user with
// std::vectors gets) and on device-resident Buffers (the kernel), against cuBLAS and OpenBLAS.
#include "datapath_runner.hpp"

#include <algorithm>
#include <random>

#include <fmt/format.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/cpu_matmul.hpp"
#include "gpgpu/error.hpp"
#include "matmul_runner.hpp"
#if GPGPU_BENCH_HAVE_CUDA
#include "cuda_matmul.hpp"
#endif

namespace gpgpu::bench::datapath {

double matmul_gflops(int n, double ms) {
  return ms > 0 ? 2.0 * n * static_cast<double>(n) * n / (ms * 1e6) : -1;
}

double halves_matmul_gflops(Session& env, int n, const MatmulOptions& options, bool gpu,
                            std::string* tuning) {
  const auto count = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  const std::vector<float> halves(count, 0.5f);
  const auto a = Buffer::from(env.context, halves), b = Buffer::from(env.context, halves);
  Buffer c(env.context, ElementType::Float32, count);
  MatmulPlan plan(env.context, n, n, n, options);
  if (tuning != nullptr) *tuning = plan.tuning().to_string();
  const double ms = kernel_ms(env.context, plan, gpu, {1, 5}, [&] { plan.run(a, b, c); });
  const float got = c.to_vector<float>()[count / 2];
  if (got != 0.25f * static_cast<float>(n)) {
    throw Error(fmt::format("bench: matmul {} gave {} instead of {}", plan.tuning().to_string(),
                            got, 0.25f * static_cast<float>(n)));
  }
  return matmul_gflops(n, ms);
}

namespace {

void run_matmul(Session& env, const std::vector<int>& sizes) {
  auto& ctx = env.context;
  Table table("matmul",
              "C = A B, float32, square: end to end from host arrays and the kernel on "
              "Buffers (GFLOPS, median)",
              {"n", "gpgpu end to end", "cuBLAS end to end (pinned)", "vs cuBLAS e2e", "OpenBLAS",
               "vs OpenBLAS", "gpgpu kernel", "cuBLAS kernel", "vs cuBLAS", "what Auto ran"});
  for (const int n : sizes) {
    env.log << fmt::format("matmul: n = {} ...\n", n) << std::flush;
    const auto problem = detail::make_problem(n, 1);
    const auto& a = problem.a;
    const auto& b = problem.b;
    std::vector<float> c(a.size());
    const int repeats = n >= 4096 ? std::min(env.options.repeats, 5) : env.options.repeats;
    // Checks 64 sampled entries and the corners against float64 within the float32 bound of a
    // length-k dot product (matmul_runner.hpp).
    const auto check = [&](const std::vector<float>& got, const char* what) {
      std::mt19937 rng(7);
      const auto r =
          detail::check_result(detail::make_check_plan(problem, 0, 64, rng), problem, got);
      if (!r.ok) throw Error(fmt::format("bench matmul ({}): {}", what, r.first_wrong));
    };

    MatmulPlan plan(ctx, n, n, n);
    plan.run(a, b, c);
    check(c, "end to end");
    const double e2e = env.median_ms([&] { plan.run(a, b, c); }, repeats);

    const auto da = Buffer::from(ctx, a), db = Buffer::from(ctx, b);
    Buffer dc(ctx, ElementType::Float32, c.size());
    const double kernel =
        kernel_ms(ctx, plan, true, env.budget(repeats), [&] { plan.run(da, db, dc); });
    plan.set_timing(false);
    check(dc.to_vector<float>(), "Buffers");

    double blas = -1;
    if (n <= 4096 || !env.software()) {
      std::vector<float> c_blas(c.size());
      blas =
          env.median_ms([&] { cpu::matmul_openblas(a, b, c_blas, n, n, n); }, std::min(repeats, 3));
    }
    double cublas_e2e = -1, cublas_kernel = -1;
#if GPGPU_BENCH_HAVE_CUDA
    if (env.cuda.ok) {
      std::vector<float> c_cuda(c.size());
      const auto t = cuda_ref::matmul(cuda_ref::Method::Cublas, a, b, c_cuda, n, n, n,
                                      env.options.warmup, repeats);
      cublas_e2e = t.end_to_end_ms_median;
      cublas_kernel = t.kernel_ms_median;
    }
#endif
    const auto gflops = [n](double ms) { return Cell::positive(matmul_gflops(n, ms), 0); };
    table.add({Cell(n), gflops(e2e), gflops(cublas_e2e), ratio_text(cublas_e2e, e2e), gflops(blas),
               ratio_text(blas, e2e), gflops(kernel), gflops(cublas_kernel),
               ratio_text(cublas_kernel, kernel), plan.description()});
  }
  table.note(fmt::format("OpenBLAS with {} threads on the host; cuBLAS FP32 (no TF32)",
                         cpu::openblas_threads()));
  table.note(
      "vs X: X's time / gpgpu's (above 1: gpgpu is faster); kernel: GL_TIME_ELAPSED of "
      "every pass on Buffers (fenced wall clock where there are no timer queries)");
  table.note("CUDA reference: " + env.cuda.status);
  env.finish(table);
}

}  // namespace

}  // namespace gpgpu::bench::datapath

namespace gpgpu::bench {

int run_datapath_bench(const DataPathBenchOptions& o, Context& context) {
  static const char* const names[] = {"saxpy", "pipeline", "matmul", "variants", "all"};
  if (std::find(std::begin(names), std::end(names), o.which) == std::end(names)) {
    throw ArgumentError(fmt::format(
        "bench datapath: unknown benchmark '{}'; choose saxpy, pipeline, matmul, variants or all",
        o.which));
  }
  Session env(context, {o.out_dir, "datapath-", o.warmup, o.repeats, o.cuda});
  env.log << fmt::format("gpgpu data-path benchmarks on {} ({}), {}\n", env.device,
                         context.info().version, env.date);
  const auto pick = [&](const auto& given, const auto& quick, const auto& cpu, const auto& gpu) {
    return !given.empty() ? given : o.quick ? quick : env.software() ? cpu : gpu;
  };
  using Sizes = std::vector<int>;
  const auto mib = std::size_t{1} << 20;
  const auto wants = [&](const std::string& name) {
    return o.which == name || (o.which == "all" && name != "variants");
  };
  if (wants("saxpy"))
    datapath::run_saxpy(
        env, pick(o.saxpy_log2, Sizes{10, 16}, Sizes{10, 16, 20, 22}, Sizes{10, 16, 20, 24, 26}));
  if (wants("pipeline"))
    datapath::run_pipeline(env, o.pipeline_bytes != 0 ? o.pipeline_bytes
                                : o.quick             ? 16 * mib
                                : env.software()      ? 64 * mib
                                                      : 1024 * mib);
  if (wants("matmul"))
    datapath::run_matmul(env, pick(o.matmul_sizes, Sizes{128, 256}, Sizes{256, 512, 1024},
                                   Sizes{1024, 2048, 4096, 8192}));
  if (wants("variants")) datapath::run_variants(env, o.quick);
  return 0;
}

}  // namespace gpgpu::bench
