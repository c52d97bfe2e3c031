// The matmul benchmark: sizes x methods, each point warmed up, timed and checked.
#include "matmul_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "gpgpu/cpu_matmul.hpp"
#include "gpgpu/error.hpp"
#include "matmul_check.hpp"
#include "matmul_contenders.hpp"
#include "matmul_report.hpp"
#if GPGPU_BENCH_HAVE_CUDA
#include "cuda_matmul.hpp"
#endif

namespace gpgpu::bench {

namespace {

using detail::BenchProblem;
using detail::Contender;
using detail::PointResult;

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown CPU";
}

// The first three fields of /proc/loadavg ("" where there is none).
std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return in ? one + " " + five + " " + fifteen : "";
}

std::string cuda_description() {
#if GPGPU_BENCH_HAVE_CUDA
  std::string why;
  if (!cuda_ref::available(&why)) return "unavailable: " + why;
  return cuda_ref::device_name();
#else
  return "not built";
#endif
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

void validate(const MatmulBenchOptions& o) {
  for (int n : o.sizes) {
    if (n < 1)
      throw ArgumentError(fmt::format("matmul bench: size {} is not a positive integer", n));
  }
  if (o.repeats < 1)
    throw ArgumentError(fmt::format("matmul bench: repeats must be >= 1 (got {})", o.repeats));
  if (o.warmup < 0)
    throw ArgumentError(fmt::format("matmul bench: warmup must be >= 0 (got {})", o.warmup));
  if (!(o.max_seconds_per_point > 0) || !(o.max_seconds_per_run > 0)) {
    throw ArgumentError("matmul bench: the time limits must be positive");
  }
  if (o.sampled_entries < 0 || o.full_check_max_n < 0) {
    throw ArgumentError("matmul bench: full_check_max_n and sampled_entries must be >= 0");
  }
}

BenchProblem make_problem(int n, std::uint32_t seed) {
  BenchProblem p;
  p.m = p.k = p.n = n;
  std::mt19937 rng(seed ^ (0x9E3779B9u * static_cast<std::uint32_t>(n)));
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  const auto count = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  p.a.resize(count);
  p.b.resize(count);
  for (float& x : p.a) x = value(rng);
  for (float& x : p.b) x = value(rng);
  return p;
}

}  // namespace

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
  const auto started = std::chrono::steady_clock::now();

  std::vector<int> sizes =
      options.sizes.empty() ? default_matmul_sizes(context.info()) : options.sizes;
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  const auto names = options.methods.empty() ? list_matmul_bench_methods() : options.methods;

  detail::BenchReport report;
  std::vector<std::unique_ptr<Contender>> contenders;
  for (const auto& name : names) {
    auto contender = detail::make_contender(name, context);  // throws for an unknown name
    if (auto why = contender->unavailable_reason(); !why.empty()) {
      report.unavailable.emplace_back(name, why);
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

  const auto& info = context.info();
  report.date = utc_now();
  report.command = options.command_line;
  report.seed = options.seed != 0 ? options.seed : std::random_device{}();
  report.renderer = info.renderer;
  report.vendor = info.vendor;
  report.gl_version = info.version;
  report.glsl_version = info.glsl_version;
  report.is_software = info.is_software;
  report.timer_query = info.has_timer_query();
  report.cpu_model = cpu_model();
  report.hardware_threads = static_cast<int>(std::thread::hardware_concurrency());
  report.load_before = load_average();
  report.openblas_config = cpu::openblas_config();
  report.cuda = cuda_description();
  report.repeats = options.repeats;
  report.warmup = options.warmup;
  report.full_check_max_n = options.full_check_max_n;
  report.sampled_entries = options.sampled_entries;
  report.max_seconds_per_point = options.max_seconds_per_point;
  report.max_seconds_per_run = options.max_seconds_per_run;
  report.sizes = sizes;

  progress << fmt::format("matmul bench on {}: {} sizes ({}..{}) x {} methods\n", info.renderer,
                          sizes.size(), sizes.front(), sizes.back(), contenders.size());
  for (const auto& [name, why] : report.unavailable)
    progress << fmt::format("  {}: not run ({})\n", name, why);

  // Seconds of one run at the last size each method ran, to predict the next size.
  std::vector<std::pair<int, double>> last_run(contenders.size(), {0, 0.0});
  std::vector<std::string> failed(contenders.size());  // a method that failed is not retried
  const std::size_t points = sizes.size() * contenders.size();
  std::size_t point = 0;
  bool any_wrong = false;
  std::mt19937 sample_rng(report.seed);
  for (int n : sizes) {
    const BenchProblem problem = make_problem(n, report.seed);
    const auto check_plan = detail::make_check_plan(problem, options.full_check_max_n,
                                                    options.sampled_entries, sample_rng);
    for (std::size_t c = 0; c < contenders.size(); ++c) {
      Contender& contender = *contenders[c];
      PointResult r;
      r.method = contender.name();
      r.family = contender.family();
      r.m = r.k = r.n = n;
      ++point;
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
        progress << fmt::format("[{:3}/{}] n={:<5} {:<27} skipped ({})\n", point, points, n,
                                r.method, r.note);
        report.results.push_back(std::move(r));
        continue;
      }
      detail::RunBudget budget;
      budget.warmup = options.warmup;
      budget.repeats = options.repeats;
      budget.max_seconds = options.max_seconds_per_point;
      // A CPU loop needs no warm-up once a run is long (no program to compile, caches and
      // thread pools are warm from the smaller sizes).
      if (r.family == "cpu" && predicted > 1.0) budget.warmup = 0;
      try {
        auto m = contender.measure(problem, budget);
        r.detail = m.detail;
        r.kernel_clock = m.kernel_clock;
        r.runs = static_cast<int>(m.kernel_ms.size());
        r.kernel_ms = median(m.kernel_ms);
        r.wall_ms = median(m.wall_ms);
        const double flops = 2.0 * n * double(n) * n;
        r.kernel_gflops = flops / (r.kernel_ms * 1e6);
        r.wall_gflops = flops / (r.wall_ms * 1e6);
        if (!m.kernel_cpu_ms.empty()) {
          r.kernel_cpu_ms = median(m.kernel_cpu_ms);
          if (r.kernel_cpu_ms > 0) r.gflop_per_cpu_second = flops / (r.kernel_cpu_ms * 1e6);
        }
        r.check_kind = check_plan.full ? "full" : "sampled";
        for (std::size_t i = 0; i < m.results.size(); ++i) {
          const auto checked = detail::check_result(check_plan, problem, m.results[i]);
          r.check = i == 0 ? checked : detail::worst_of(r.check, checked);
        }
        r.status = r.check.ok ? "ok" : "WRONG";
        if (!r.check.ok) {
          any_wrong = true;
          r.note = fmt::format("{} of {} checked entries outside the bound; first: {}",
                               r.check.wrong, r.check.checked, r.check.first_wrong);
        }
        last_run[c] = {n, std::max(r.kernel_ms, r.wall_ms) / 1e3};
        progress << fmt::format(
            "[{:3}/{}] n={:<5} {:<27} kernel {:>7} GFLOPS  end-to-end {:>7}  {} "
            "(rel err {:.1e}, {} check)\n",
            point, points, n, r.method, detail::format_gflops(r.kernel_gflops),
            detail::format_gflops(r.wall_gflops), r.status, r.check.relative_error, r.check_kind);
      } catch (const std::exception& e) {
        r.status = "error";
        r.note = first_line(e.what());
        progress << fmt::format("[{:3}/{}] n={:<5} {:<27} error: {}\n", point, points, n, r.method,
                                r.note);
        failed[c] = fmt::format("failed at n={}", n);
      }
      report.results.push_back(std::move(r));
    }
  }
  report.total_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  report.load_after = load_average();

  detail::print_report(table, report);
  if (!options.out_dir.empty()) {
    detail::write_json(options.out_dir / "matmul.json", report);
    detail::write_csv(options.out_dir / "matmul.csv", report);
    std::string charts =
        options.charts ? detail::draw_charts(options.out_dir, report) : "charts off";
    table << fmt::format("\nwrote {}/matmul.json, matmul.csv; {}\n", options.out_dir.string(),
                         charts);
  }
  return any_wrong ? 1 : 0;
}

}  // namespace gpgpu::bench
