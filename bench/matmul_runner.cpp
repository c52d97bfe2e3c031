// The matmul benchmark: its contenders (gpgpu's GL methods, gpgpu::cpu and the optional CUDA
// reference) over sizes, each point warmed up, timed and checked (matmul_check.cpp); then the
// results as markdown tables, JSON, CSV and gnuplot charts.
#include "matmul_runner.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <random>

#include <fmt/format.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/cpu_matmul.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/matmul.hpp"
#if GPGPU_BENCH_HAVE_CUDA
#include "cuda_matmul.hpp"
#endif

namespace gpgpu::bench {

namespace {

using namespace detail;

// One method at one size, measured by Contender::measure.
struct Measurement {
  std::vector<double> kernel_ms;  // one per timed run (CUDA: its median)
  // CPU time this process used during each kernel run (all its threads, llvmpipe's
  // included); empty where it means nothing (CUDA).
  std::vector<double> kernel_cpu_ms;
  std::vector<double> wall_ms;              // end to end, host arrays in and out
  std::string kernel_clock;                 // gl_time_elapsed, wall_glfinish, cuda_event, wall
  std::vector<std::vector<float>> results;  // every C to check against float64
  std::string detail;                       // e.g. the tuning a gpgpu method ran with
};

// A thing timed: `measure` warms up and times one size (Budget::max_seconds for all its timed
// runs together) and throws gpgpu::Error if the method fails; `unavailable` says why it cannot
// run here (not implemented, no CUDA device...), empty when it can.
struct Contender {
  std::string name, family;  // family: "gl", "cpu" or "cuda"
  std::string unavailable;
  std::function<Measurement(const BenchProblem&, const Budget&)> measure;
};

std::vector<float> poisoned(int rows, int cols) {
  return std::vector<float>(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols),
                            std::numeric_limits<float>::quiet_NaN());
}

// A gpgpu method through MatmulPlan, with the tuning the library would choose itself.
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

// The gpgpu::cpu functions: nothing to upload, so their kernel and end-to-end times are one.
struct CpuMethod {
  const char* name;
  void (*function)(std::span<const float>, std::span<const float>, std::span<float>, int, int, int);
  const char* detail;  // nullptr: OpenBLAS's threads
};
constexpr CpuMethod cpu_methods[] = {
    {"cpu_naive", cpu::matmul_naive, "1 thread"},
    {"cpu_openmp", cpu::matmul_openmp, "OpenMP"},
    {"cpu_openmp_transposed", cpu::matmul_openmp_transposed, "OpenMP, B transposed in the call"},
    {"cpu_openblas", cpu::matmul_openblas, nullptr}};

Measurement cpu_measure(const CpuMethod& method, const BenchProblem& p, const Budget& budget) {
  Measurement out;
  out.detail = method.detail ? method.detail : fmt::format("{} threads", cpu::openblas_threads());
  auto c = poisoned(p.m, p.n);
  out.kernel_ms = out.wall_ms = wall_times(
      budget, [&] { method.function(p.a, p.b, c, p.m, p.k, p.n); }, &out.kernel_cpu_ms);
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

Contender make_contender(const std::string& name, gpgpu::Context& context) {
  using namespace std::placeholders;
  if (auto method = parse_matmul_method(name); method && *method != MatmulMethod::Auto) {
    const bool fragment =
        method == MatmulMethod::FragmentNaive || method == MatmulMethod::FragmentPacked;
    const char* why =
        !matmul_method_implemented(*method) ? "not implemented yet"
        : fragment && !context.info().has_color_buffer_float()
            ? "the device cannot render to float textures (no GL_EXT_color_buffer_float)"
            : "";
    return {name, "gl", why, std::bind(gl_measure, std::ref(context), *method, _1, _2)};
  }
  for (const CpuMethod& m : cpu_methods) {
    if (name == m.name) return {name, "cpu", "", std::bind(cpu_measure, m, _1, _2)};
  }
  for (int m = 0; m < 3; ++m) {
    if (name == cuda_names[m])
      return {name, "cuda", cuda_unavailable(), std::bind(cuda_measure, m, _1, _2)};
  }
  throw ArgumentError(fmt::format("matmul bench: unknown method '{}'; the methods are {}", name,
                                  fmt::join(list_matmul_bench_methods(), ", ")));
}

// 3 significant digits: 0.0123, 1.23, 12.3, 1234.
std::string format_gflops(double g) {
  if (!(g > 0) || !std::isfinite(g)) return "-";
  return fmt::format(fmt::runtime(g >= 100  ? "{:.0f}"
                                  : g >= 10 ? "{:.1f}"
                                  : g >= 1  ? "{:.2f}"
                                            : "{:.3g}"),
                     g);
}

// One method at one size (m = k = n): a row of matmul.json and matmul.csv.
struct PointResult {
  std::string method, family;
  int n = 0;
  std::string status;  // ok, WRONG, skipped, error
  std::string note;    // why skipped / the error / the first wrong entry
  std::string detail;  // tuning, threads, device
  std::string kernel_clock;
  int runs = 0;
  double kernel_ms = 0, wall_ms = 0;  // medians; 0 when not measured
  double kernel_gflops = 0, wall_gflops = 0;
  double kernel_cpu_ms = 0;         // median CPU time of the process per kernel run
  double gflop_per_cpu_second = 0;  // 2 m n k / that: robust to other load on the CPU
  CheckResult check;
};

struct Report {
  RunFacts facts;
  unsigned seed = 0;
  std::string openblas_config;
  MatmulBenchOptions options;                                    // with the sizes that ran, sorted
  std::vector<std::string> methods;                              // that ran, in report order
  std::vector<std::pair<std::string, std::string>> unavailable;  // method, why
  std::vector<PointResult> results;

  const PointResult* find(const std::string& method, int n) const {
    for (const auto& r : results) {
      if (r.method == method && r.n == n) return &r;
    }
    return nullptr;
  }
  void print(std::ostream& out) const;                        // markdown tables, notes, headline
  void print_tables(std::ostream& out) const;                 // one per measure
  std::string notes() const;                                  // what did not run, and why
  void print_headline(std::ostream& out) const;               // the best at the largest size
  void write(const std::filesystem::path& dir) const;         // matmul.json and .csv
  std::string chart(const std::filesystem::path& dir) const;  // what was drawn, or why not
};

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
             const CheckPlan& plan, const Budget& budget) {
  const auto m = contender.measure(problem, budget);
  r.detail = m.detail;
  r.kernel_clock = m.kernel_clock;
  r.runs = static_cast<int>(m.kernel_ms.size());
  r.kernel_ms = median(m.kernel_ms);
  r.wall_ms = median(m.wall_ms);
  const double flops = 2.0 * r.n * double(r.n) * r.n;
  r.kernel_gflops = flops / (r.kernel_ms * 1e6);
  r.wall_gflops = flops / (r.wall_ms * 1e6);
  if (!m.kernel_cpu_ms.empty()) {
    r.kernel_cpu_ms = median(m.kernel_cpu_ms);
    if (r.kernel_cpu_ms > 0) r.gflop_per_cpu_second = flops / (r.kernel_cpu_ms * 1e6);
  }
  for (const auto& c : m.results) r.check = check_result(plan, problem, c, r.check);
  r.status = r.check.ok ? "ok" : "WRONG";
  if (!r.check.ok) {
    r.note = fmt::format("{} of {} checked entries outside the bound; first: {}", r.check.wrong,
                         r.check.checked, r.check.first_wrong);
  }
}

void Report::print(std::ostream& out) const {
  const RunFacts& f = facts;
  out << fmt::format(
      "\nmatmul benchmark, C = A B, float32, n x n x n\ndevice: {} ({}, {})\n"
      "cpu: {}, {} threads; OpenBLAS {}\ncuda: {}\n"
      "load average (1, 5, 15 min) before: {}, after: {}\ndate: {}   seed: {}\n",
      f.renderer, f.vendor, f.gl_version, f.cpu_model, f.hardware_threads, openblas_config, f.cuda,
      f.load_before, f.load_after, f.date, seed);
  if (!f.command.empty()) out << "command: " << f.command << "\n";

  print_tables(out);
  if (const std::string n = notes(); !n.empty()) out << "\nNotes\n" << n;
  print_headline(out);
  out << fmt::format("\ntotal time {:.1f} s\n", f.seconds);
}

void Report::print_tables(std::ostream& out) const {
  const RunFacts& f = facts;
  // One table per heading: a row per method, a column per size; a point that did not run
  // says why. No heading: no table.
  using Text = std::function<std::string(const PointResult&)>;
  const auto gflops = [](double PointResult::*field) -> Text {
    return [field](const PointResult& r) { return format_gflops(r.*field); };
  };
  const std::pair<std::string, Text> tables[] = {
      {fmt::format("Kernel GFLOPS (data already on the device; median of up to {} runs after {} "
                   "warm-up)",
                   options.repeats, options.warmup),
       gflops(&PointResult::kernel_gflops)},
      {f.is_software ? "GFLOP per CPU-second (kernel runs; CPU time of this process, llvmpipe's "
                       "threads included; less moved than GFLOPS by other processes competing "
                       "for the cores, though threads that spin while they wait count)"
                     : "",
       gflops(&PointResult::gflop_per_cpu_second)},
      {"End-to-end GFLOPS (host arrays in and out: upload, kernel, download)",
       gflops(&PointResult::wall_gflops)},
      {fmt::format("Precision: max |c - c64| / max |c64| over the checked entries (full check up "
                   "to n = {}, else {} sampled + corners)",
                   options.full_check_max_n, options.sampled_entries),
       [](const PointResult& r) { return fmt::format("{:.1e}", r.check.relative_error); }},
      {"Precision: worst |c - c64| / (2^-24 sum_i |a_ri b_ic|); correct means <= k + 2",
       [](const PointResult& r) { return fmt::format("{:.2f}", r.check.worst_normalised); }}};
  for (const auto& [heading, text] : tables) {
    if (heading.empty()) continue;
    std::vector<std::string> columns{"method \\ n"};
    for (int n : options.sizes) columns.push_back(std::to_string(n));
    Table table(columns);
    for (const auto& m : methods) {
      std::vector<Cell> row{m};
      for (int n : options.sizes) {
        const PointResult* r = find(m, n);
        Cell cell(r == nullptr             ? ""
                  : r->status == "skipped" ? "skip"
                  : r->status != "ok"      ? r->status
                                           : text(*r));
        cell.number = 0;  // aligned right, as numbers are
        row.push_back(cell);
      }
      table.add(std::move(row));
    }
    out << "\n" << heading << "\n\n";
    table.print(out, true);
  }
}

std::string Report::notes() const {
  std::string text;
  for (const auto& [method, why] : unavailable)
    text += fmt::format("- {}: not run ({})\n", method, why);
  std::map<std::string, std::string> details;
  std::map<std::string, std::pair<int, std::string>> skips;  // first skipped size per method
  for (const auto& r : results) {
    if (!r.detail.empty()) details[r.method] = r.detail;
    if (r.status == "WRONG" || r.status == "error")
      text += fmt::format("- {} n={}: {} — {}\n", r.method, r.n, r.status, r.note);
    if (r.status == "skipped" && !skips.count(r.method)) skips[r.method] = {r.n, r.note};
  }
  for (const auto& [method, skip] : skips)
    text += fmt::format("- {}: skipped from n={} ({})\n", method, skip.first, skip.second);
  for (const auto& [method, detail] : details) text += fmt::format("- {}: {}\n", method, detail);
  return text;
}

void Report::print_headline(std::ostream& out) const {
  // The headline: at the largest size, the fastest correct gpgpu method against the others.
  for (auto n = options.sizes.rbegin(); n != options.sizes.rend(); ++n) {
    const PointResult* best = nullptr;
    for (const auto& r : results) {
      if (r.n == *n && r.family == "gl" && r.status == "ok" &&
          (best == nullptr || r.kernel_gflops > best->kernel_gflops)) {
        best = &r;
      }
    }
    if (best == nullptr) continue;
    out << fmt::format(
        "\nAt n = {}: fastest gpgpu method {} at {} GFLOPS (kernel), {} end to end\n", *n,
        best->method, format_gflops(best->kernel_gflops), format_gflops(best->wall_gflops));
    for (const auto& r : results) {
      if (r.n != *n || r.family == "gl" || r.status != "ok") continue;
      out << fmt::format("  vs {}: {} GFLOPS -> {:.2f}x (end to end {:.2f}x)\n", r.method,
                         format_gflops(r.kernel_gflops), best->kernel_gflops / r.kernel_gflops,
                         best->wall_gflops / r.wall_gflops);
    }
    break;
  }
}

void Report::write(const std::filesystem::path& dir) const {
  const RunFacts& f = facts;
  const MatmulBenchOptions& o = options;
  Table table("matmul", "matmul benchmark, C = A B, float32, n x n x n",
              {// A point's columns,
               "method", "family", "m", "k", "n", "status", "kernel_ms", "wall_ms", "kernel_gflops",
               "wall_gflops", "kernel_cpu_ms", "gflop_per_cpu_second", "kernel_clock", "runs",
               "detail", "note",
               // then its check's.
               "check", "checked_entries", "wrong_entries", "max_abs_error", "relative_error",
               "worst_normalised_error", "bound"});
  for (const auto& r : results) {
    const CheckResult& c = r.check;
    table.add({// The point's cells (m = k = n),
               r.method, r.family, r.n, r.n, r.n, r.status, r.kernel_ms, r.wall_ms, r.kernel_gflops,
               r.wall_gflops, r.kernel_cpu_ms, r.gflop_per_cpu_second, r.kernel_clock, r.runs,
               r.detail, r.note,
               // then its check's.
               c.kind, c.checked, c.wrong, c.max_abs_error, c.relative_error, c.worst_normalised,
               c.bound});
  }
  table.note("command: " + f.command);
  table.note(fmt::format("device: {} ({}, {}, {}); software {}, timer queries {}", f.renderer,
                         f.vendor, f.gl_version, f.glsl_version, f.is_software, f.timer_query));
  table.note(fmt::format("host: {}, {} threads; OpenBLAS {}; load average before {}, after {}",
                         f.cpu_model, f.hardware_threads, openblas_config, f.load_before,
                         f.load_after));
  table.note("cuda: " + f.cuda);
  table.note(fmt::format(
      "options: sizes {}; repeats {}; warmup {}; max seconds per point {}, per run {}; every "
      "entry checked up to n = {}, else {} sampled; seed {}",
      fmt::join(o.sizes, ", "), o.repeats, o.warmup, o.max_seconds_per_point, o.max_seconds_per_run,
      o.full_check_max_n, o.sampled_entries, seed));
  table.note("an entry is correct when |c - c64| <= (k + 2) * 2^-24 * sum_i |a_ri b_ic|");
  table.note("GFLOPS: 2 m n k / median time");
  for (const auto& [method, why] : unavailable)
    table.note(fmt::format("{}: not run ({})", method, why));
  table.note(fmt::format("total {:.1f} s", f.seconds));
  table.write(dir, "", f.renderer, f.date);
}

// matmul_chart.dat and .gp, and gnuplot's matmul_gflops.png, matmul_gflops_end_to_end.png and
// matmul_precision.png.
std::string Report::chart(const std::filesystem::path& dir) const {
  Chart chart(dir, "matmul_chart",
              fmt::format("set datafile separator whitespace\nset logscale xy\n"
                          "set grid xtics ytics mxtics mytics lc rgb '#dddddd'\n"
                          "set key outside right top\n"
                          "set xlabel 'matrix size n (n x n times n x n)'\nset xrange [{}:{}]\n",
                          options.sizes.front() * 0.9, options.sizes.back() * 1.1));
  // One block per method, correct results only: a WRONG result's speed means nothing.
  std::vector<std::tuple<std::string, std::string, int>> plotted;  // method, family, block
  for (const auto& m : methods) {
    std::string rows, family;
    for (int n : options.sizes) {
      const PointResult* r = find(m, n);
      if (r == nullptr || r->status != "ok") continue;
      family = r->family;
      rows += fmt::format("{} {} {} {}\n", n, number(r->kernel_gflops), number(r->wall_gflops),
                          number(r->check.relative_error));
    }
    if (const int block = chart.block(m, rows); block >= 0) plotted.emplace_back(m, family, block);
  }
  const std::string title = fmt::format("{} — {}", facts.renderer, facts.date.substr(0, 10));
  const auto plot = [&](const char* png, const std::string& heading, const char* ylabel,
                        int column) {
    // A colour of its own per method; the line style tells the family: gpgpu solid, CPU
    // dashed, CUDA dotted. GFLOPS read best as plain numbers, relative errors as powers of ten.
    static constexpr const char* colours[] = {
        "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
        "#bcbd22", "#17becf", "#000000", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5"};
    std::vector<std::string> series;
    for (const auto& [method, family, block] : plotted) {
      const auto i = series.size();
      series.push_back(fmt::format(
          "'matmul_chart.dat' index {} using 1:{} with linespoints lw 2 dt {} lc rgb '{}' pt {} "
          "title {}",
          block, column,
          family == "cpu"    ? 2
          : family == "cuda" ? 3
                             : 1,
          colours[i % std::size(colours)], static_cast<int>(i % 13) + 1, gnuplot_string(method)));
    }
    chart.plot(
        png,
        fmt::format("set title {}\nset ylabel '{}'\nset format y '{}'\n",
                    gnuplot_string(heading + " — " + title), ylabel, column == 4 ? "%.0e" : "%g"),
        series);
  };
  plot("matmul_gflops.png", "matmul kernel GFLOPS (data on the device)", "GFLOPS", 2);
  plot("matmul_gflops_end_to_end.png", "matmul end-to-end GFLOPS (upload + kernel + download)",
       "GFLOPS", 3);
  plot("matmul_precision.png", "matmul max |c - c64| / max |c64|", "relative error", 4);
  return chart.draw();
}

}  // namespace

int run_matmul_bench(const MatmulBenchOptions& options, gpgpu::Context& context) {
  validate(options);
  std::ostream& progress = options.progress ? *options.progress : std::cerr;
  Report report;
  report.options = options;
  // Sizes that fit the device: on llvmpipe the whole run takes a few minutes.
  std::vector<int>& sizes = report.options.sizes;
  if (sizes.empty() && context.info().is_software)
    sizes = {8, 16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
  if (sizes.empty())
    sizes = {8, 16, 32, 64, 128, 256, 512, 1024, 1536, 2048, 3072, 4096, 6144, 8192};
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  std::vector<Contender> contenders;
  for (const auto& name : options.methods.empty() ? list_matmul_bench_methods() : options.methods) {
    auto contender = make_contender(name, context);  // throws for an unknown name
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
    const auto check_plan =
        make_check_plan(problem, options.full_check_max_n, options.sampled_entries, sample_rng);
    for (std::size_t c = 0; c < contenders.size(); ++c) {
      PointResult& r = report.results.emplace_back();
      r.method = contenders[c].name;
      r.family = contenders[c].family;
      r.n = n;
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
                         format_gflops(r.kernel_gflops), format_gflops(r.wall_gflops), r.status,
                         r.check.relative_error, r.check.kind));
      } catch (const std::exception& e) {
        r.status = "error";
        r.note = std::string(e.what()).substr(0, std::string(e.what()).find('\n'));
        line("error: " + r.note);
        failed[c] = fmt::format("failed at n={}", n);
      }
    }
  }
  report.facts.end();

  std::ostream& table = options.table ? *options.table : std::cout;
  report.print(table);
  if (!options.out_dir.empty()) {
    report.write(options.out_dir);
    const std::string charts = options.charts ? report.chart(options.out_dir) : "charts off";
    table << fmt::format("\nwrote {}/matmul.json, matmul.csv; {}\n", options.out_dir.string(),
                         charts);
  }
  const bool wrong = std::any_of(report.results.begin(), report.results.end(),
                                 [](const PointResult& r) { return r.status == "WRONG"; });
  return wrong ? 1 : 0;
}

std::vector<std::string> list_matmul_bench_methods() {
  std::vector<std::string> names;
  for (MatmulMethod method : all_matmul_methods()) names.emplace_back(to_string(method));
  for (const auto& m : cpu_methods) names.emplace_back(m.name);
  names.insert(names.end(), std::begin(cuda_names), std::end(cuda_names));
  return names;
}

}  // namespace gpgpu::bench
