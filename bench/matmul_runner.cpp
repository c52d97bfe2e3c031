// The matmul benchmark: sizes x methods, each point warmed up, timed and checked.
#include "matmul_runner.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>

#include <fmt/format.h>

#include "gpgpu/cpu_matmul.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::bench {

namespace {

using detail::BenchProblem;
using detail::Contender;
using detail::make_problem;
using detail::PointResult;

void validate(const MatmulBenchOptions& o) {
  const auto fail = [](const std::string& why) { throw ArgumentError("matmul bench: " + why); };
  for (int n : o.sizes) {
    if (n < 1) fail(fmt::format("size {} is not a positive integer", n));
  }
  if (o.repeats < 1) fail(fmt::format("repeats must be >= 1 (got {})", o.repeats));
  if (o.warmup < 0) fail(fmt::format("warmup must be >= 0 (got {})", o.warmup));
  if (!(o.max_seconds_per_point > 0) || !(o.max_seconds_per_run > 0))
    fail("the time limits must be positive");
  if (o.sampled_entries < 0 || o.full_check_max_n < 0)
    fail("full_check_max_n and sampled_entries must be >= 0");
}

// Times and checks one point.
void measure(PointResult& r, Contender& contender, const BenchProblem& problem,
             const detail::CheckPlan& plan, const Budget& budget) {
  const auto m = contender.measure(problem, budget);
  r.detail = m.detail;
  r.kernel_clock = m.kernel_clock;
  r.runs = static_cast<int>(m.kernel_ms.size());
  r.kernel_ms = median(m.kernel_ms);
  r.wall_ms = median(m.wall_ms);
  const double flops = 2.0 * r.m * double(r.n) * r.k;
  r.kernel_gflops = flops / (r.kernel_ms * 1e6);
  r.wall_gflops = flops / (r.wall_ms * 1e6);
  if (!m.kernel_cpu_ms.empty()) {
    r.kernel_cpu_ms = median(m.kernel_cpu_ms);
    if (r.kernel_cpu_ms > 0) r.gflop_per_cpu_second = flops / (r.kernel_cpu_ms * 1e6);
  }
  for (std::size_t i = 0; i < m.results.size(); ++i) {
    const auto checked = detail::check_result(plan, problem, m.results[i]);
    r.check = i == 0 ? checked : detail::worst_of(r.check, checked);
  }
  r.status = r.check.ok ? "ok" : "WRONG";
  if (!r.check.ok) {
    r.note = fmt::format("{} of {} checked entries outside the bound; first: {}", r.check.wrong,
                         r.check.checked, r.check.first_wrong);
  }
}

}  // namespace

detail::BenchProblem detail::make_problem(int n, std::uint32_t seed) {
  BenchProblem p{n, n, n, {}, {}};
  std::mt19937 rng(seed ^ (0x9E3779B9u * static_cast<std::uint32_t>(n)));
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (auto* v : {&p.a, &p.b}) {
    v->resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
    for (float& x : *v) x = value(rng);
  }
  return p;
}

std::vector<std::string> list_matmul_bench_methods() {
  return detail::contender_names();
}

std::vector<int> default_matmul_sizes(const gpgpu::DeviceInfo& device) {
  if (device.is_software) return {8, 16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
  return {8, 16, 32, 64, 128, 256, 512, 1024, 1536, 2048, 3072, 4096, 6144, 8192};
}

int run_matmul_bench(const MatmulBenchOptions& options, gpgpu::Context& context) {
  validate(options);
  std::ostream& table = options.table ? *options.table : std::cout;
  std::ostream& progress = options.progress ? *options.progress : std::cerr;

  std::vector<int> sizes =
      options.sizes.empty() ? default_matmul_sizes(context.info()) : options.sizes;
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  detail::BenchReport report;
  std::vector<Contender> contenders;
  for (const auto& name : options.methods.empty() ? list_matmul_bench_methods() : options.methods) {
    auto contender = detail::make_contender(name, context);  // throws for an unknown name
    if (!contender.unavailable.empty()) {
      report.unavailable.emplace_back(name, contender.unavailable);
      continue;
    }
    report.methods.push_back(name);
    contenders.push_back(std::move(contender));
  }
  if (!options.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.out_dir, ec);
    if (ec) {
      throw Error(fmt::format("matmul bench: cannot create {}: {}", options.out_dir.string(),
                              ec.message()));
    }
  }

  report.facts = RunFacts::begin(context, options.command_line, "%Y-%m-%dT%H:%M:%SZ");
  report.seed = options.seed != 0 ? options.seed : std::random_device{}();
  report.openblas_config = cpu::openblas_config();
  report.options = options;
  report.options.sizes = sizes;

  progress << fmt::format("matmul bench on {}: {} sizes ({}..{}) x {} methods\n",
                          report.facts.renderer, sizes.size(), sizes.front(), sizes.back(),
                          contenders.size());
  for (const auto& [name, why] : report.unavailable)
    progress << fmt::format("  {}: not run ({})\n", name, why);

  // Seconds of one run at the last size each method ran, to predict the next size.
  std::vector<std::pair<int, double>> last_run(contenders.size(), {0, 0.0});
  std::vector<std::string> failed(contenders.size());  // a method that failed is not retried
  const std::size_t points = sizes.size() * contenders.size();
  std::size_t point = 0;
  std::mt19937 sample_rng(report.seed);
  for (int n : sizes) {
    const BenchProblem problem = make_problem(n, report.seed);
    const auto check_plan = detail::make_check_plan(problem, options.full_check_max_n,
                                                    options.sampled_entries, sample_rng);
    for (std::size_t c = 0; c < contenders.size(); ++c) {
      PointResult& r = report.results.emplace_back();
      r.method = contenders[c].name;
      r.family = contenders[c].family;
      r.m = r.k = r.n = n;
      const auto line = [&](const std::string& what) {
        progress << fmt::format("[{:3}/{}] n={:<5} {:<27} {}\n", ++point, points, n, r.method,
                                what);
      };
      const auto [last_n, last_seconds] = last_run[c];
      // Runs under 50 ms are mostly overhead (dispatch, thread wake-up) and say little about
      // how the time grows with n^3; predicting from them would skip sizes that are fast.
      const double predicted =
          last_n > 0 && last_seconds >= 0.05 ? last_seconds * std::pow(double(n) / last_n, 3) : 0.0;
      if (!failed[c].empty() || predicted > options.max_seconds_per_run) {
        r.status = "skipped";
        r.note = !failed[c].empty() ? failed[c]
                                    : fmt::format("one run predicted to take {:.0f} s > {:.0f} s",
                                                  predicted, options.max_seconds_per_run);
        line(fmt::format("skipped ({})", r.note));
        continue;
      }
      // A CPU loop needs no warm-up once a run is long (no program to compile, caches and
      // thread pools are warm from the smaller sizes).
      const Budget budget{r.family == "cpu" && predicted > 1.0 ? 0 : options.warmup,
                          options.repeats, options.max_seconds_per_point};
      try {
        measure(r, contenders[c], problem, check_plan, budget);
        last_run[c] = {n, std::max(r.kernel_ms, r.wall_ms) / 1e3};
        line(fmt::format("kernel {:>7} GFLOPS  end-to-end {:>7}  {} (rel err {:.1e}, {} check)",
                         detail::format_gflops(r.kernel_gflops),
                         detail::format_gflops(r.wall_gflops), r.status, r.check.relative_error,
                         r.check.kind));
      } catch (const std::exception& e) {
        r.status = "error";
        r.note = std::string(e.what()).substr(0, std::string(e.what()).find('\n'));
        line("error: " + r.note);
        failed[c] = fmt::format("failed at n={}", n);
      }
    }
  }
  report.facts.end();

  detail::print_report(table, report);
  if (!options.out_dir.empty()) {
    detail::write_files(options.out_dir, report);
    std::string charts =
        options.charts ? detail::draw_charts(options.out_dir, report) : "charts off";
    table << fmt::format("\nwrote {}/matmul.json, matmul.csv; {}\n", options.out_dir.string(),
                         charts);
  }
  const bool wrong = std::any_of(report.results.begin(), report.results.end(),
                                 [](const PointResult& r) { return r.status == "WRONG"; });
  return wrong ? 1 : 0;
}

}  // namespace gpgpu::bench
