// matmul: C = A B from host arrays end to end (what a user with std::vectors gets) and on
// device-resident Buffers (the kernel), against cuBLAS and OpenBLAS.
#include <random>

#include <fmt/format.h>

#include "datapath_runner.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/cpu_matmul.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/matmul.hpp"
#include "matmul_runner.hpp"

#if GPGPU_BENCH_HAVE_CUDA
#include "cuda_matmul.hpp"
#endif

namespace gpgpu::bench::datapath {

namespace {

// Checks 64 sampled entries and the corners against float64 within the float32 bound of a
// length-k dot product (matmul_runner.hpp).
void check(const detail::BenchProblem& p, const std::vector<float>& c, const std::string& what) {
  std::mt19937 rng(7);
  const auto r = detail::check_result(detail::make_check_plan(p, 0, 64, rng), p, c);
  if (!r.ok) throw Error(fmt::format("bench matmul ({}): {}", what, r.first_wrong));
}

double gflops(int n, double ms) {
  return ms > 0 ? 2.0 * n * static_cast<double>(n) * n / (ms * 1e6) : -1;
}

}  // namespace

void run_matmul(Session& env, const std::vector<int>& sizes) {
  auto& ctx = env.context;
  Table table("matmul",
              "C = A B, float32, square: end to end from host arrays and the kernel on "
              "Buffers (GFLOPS, median)",
              {"n", "gpgpu end to end", "cuBLAS end to end (pinned)", "vs cuBLAS e2e", "OpenBLAS",
               "vs OpenBLAS", "gpgpu kernel", "cuBLAS kernel", "vs cuBLAS", "what Auto ran"});
  for (const int n : sizes) {
    env.log << fmt::format("matmul: n = {} ...\n", n) << std::flush;
    const auto count = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    const auto problem = detail::make_problem(n, 1);
    const auto& a = problem.a;
    const auto& b = problem.b;
    std::vector<float> c(count);
    const int repeats = n >= 4096 ? std::min(env.options.repeats, 5) : env.options.repeats;

    MatmulPlan plan(ctx, n, n, n);
    plan.run(a, b, c);
    check(problem, c, "end to end");
    const double e2e = env.median_ms([&] { plan.run(a, b, c); }, repeats);

    const auto da = Buffer::from(ctx, a), db = Buffer::from(ctx, b);
    Buffer dc(ctx, ElementType::Float32, count);
    const double kernel =
        kernel_ms(ctx, plan, true, env.budget(repeats), [&] { plan.run(da, db, dc); });
    plan.set_timing(false);
    check(problem, dc.to_vector<float>(), "Buffers");

    double blas = -1;
    if (n <= 4096 || !env.software()) {
      std::vector<float> c_blas(count);
      blas =
          env.median_ms([&] { cpu::matmul_openblas(a, b, c_blas, n, n, n); }, std::min(repeats, 3));
    }
    double cublas_e2e = -1, cublas_kernel = -1;
#if GPGPU_BENCH_HAVE_CUDA
    if (env.cuda.ok) {
      std::vector<float> c_cuda(count);
      const auto t = cuda_ref::matmul(cuda_ref::Method::Cublas, a, b, c_cuda, n, n, n,
                                      env.options.warmup, repeats);
      cublas_e2e = t.end_to_end_ms_median;
      cublas_kernel = t.kernel_ms_median;
    }
#endif
    table.add({Cell(n), Cell::positive(gflops(n, e2e), 0), Cell::positive(gflops(n, cublas_e2e), 0),
               ratio_text(cublas_e2e, e2e), Cell::positive(gflops(n, blas), 0),
               ratio_text(blas, e2e), Cell::positive(gflops(n, kernel), 0),
               Cell::positive(gflops(n, cublas_kernel), 0), ratio_text(cublas_kernel, kernel),
               plan.description()});
  }
  table.note(fmt::format("OpenBLAS with {} threads on the host; cuBLAS FP32 (no TF32)",
                         cpu::openblas_threads()));
  table.note(
      "vs X: X's time / gpgpu's (above 1: gpgpu is faster); kernel: GL_TIME_ELAPSED of "
      "every pass on Buffers (fenced wall clock where there are no timer queries)");
  table.note("CUDA reference: " + env.cuda.status);
  env.finish(table);
}

}  // namespace gpgpu::bench::datapath
