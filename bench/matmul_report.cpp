// Writing the matmul benchmark's results: markdown tables, JSON, CSV, gnuplot charts.
#include "matmul_runner.hpp"

#include <cmath>
#include <map>

#include <fmt/format.h>

namespace gpgpu::bench::detail {

namespace {

const PointResult* find(const BenchReport& report, const std::string& method, int n) {
  for (const auto& r : report.results) {
    if (r.method == method && r.n == n) return &r;
  }
  return nullptr;
}

// One row per method, one column per size; a point that did not run says why.
template <class Text>
void print_table(std::ostream& out, const BenchReport& report, Text text) {
  std::vector<std::string> columns{"method \\ n"};
  for (int n : report.options.sizes) columns.push_back(std::to_string(n));
  Table table(columns);
  for (const auto& m : report.methods) {
    std::vector<Cell> row{m};
    for (int n : report.options.sizes) {
      const PointResult* r = find(report, m, n);
      Cell cell(r == nullptr             ? ""
                : r->status == "skipped" ? "skip"
                : r->status != "ok"      ? r->status
                                         : text(*r));
      cell.number = 0;  // aligned right, as numbers are
      row.push_back(cell);
    }
    table.add(std::move(row));
  }
  table.print(out, true);
}

}  // namespace

std::string format_gflops(double g) {
  if (!(g > 0) || !std::isfinite(g)) return "-";
  return fmt::format(fmt::runtime(g >= 100  ? "{:.0f}"
                                  : g >= 10 ? "{:.1f}"
                                  : g >= 1  ? "{:.2f}"
                                            : "{:.3g}"),
                     g);
}

void print_report(std::ostream& out, const BenchReport& report) {
  const RunFacts& f = report.facts;
  out << fmt::format(
      "\nmatmul benchmark, C = A B, float32, n x n x n\ndevice: {} ({}, {})\n"
      "cpu: {}, {} threads; OpenBLAS {}\ncuda: {}\n"
      "load average (1, 5, 15 min) before: {}, after: {}\ndate: {}   seed: {}\n",
      f.renderer, f.vendor, f.gl_version, f.cpu_model, f.hardware_threads, report.openblas_config,
      f.cuda, f.load_before, f.load_after, f.date, report.seed);
  if (!f.command.empty()) out << "command: " << f.command << "\n";

  const auto gflops = [](double PointResult::*field) {
    return [field](const PointResult& r) { return format_gflops(r.*field); };
  };
  out << "\nKernel GFLOPS (data already on the device; median of up to " << report.options.repeats
      << " runs after " << report.options.warmup << " warm-up)\n\n";
  print_table(out, report, gflops(&PointResult::kernel_gflops));
  if (f.is_software) {
    out << "\nGFLOP per CPU-second (kernel runs; CPU time of this process, llvmpipe's threads "
           "included; less moved than GFLOPS by other processes competing for the cores, though "
           "threads that spin while they wait count)\n\n";
    print_table(out, report, gflops(&PointResult::gflop_per_cpu_second));
  }
  out << "\nEnd-to-end GFLOPS (host arrays in and out: upload, kernel, download)\n\n";
  print_table(out, report, gflops(&PointResult::wall_gflops));
  out << "\nPrecision: max |c - c64| / max |c64| over the checked entries (full check up to n = "
      << report.options.full_check_max_n << ", else " << report.options.sampled_entries
      << " sampled + corners)\n\n";
  print_table(out, report,
              [](const PointResult& r) { return fmt::format("{:.1e}", r.check.relative_error); });
  out << "\nPrecision: worst |c - c64| / (2^-24 sum_i |a_ri b_ic|); correct means <= k + 2\n\n";
  print_table(out, report,
              [](const PointResult& r) { return fmt::format("{:.2f}", r.check.worst_normalised); });

  std::string notes;
  for (const auto& [method, why] : report.unavailable)
    notes += fmt::format("- {}: not run ({})\n", method, why);
  std::map<std::string, std::string> details;
  std::map<std::string, std::pair<int, std::string>> skips;  // first skipped size per method
  for (const auto& r : report.results) {
    if (!r.detail.empty()) details[r.method] = r.detail;
    if (r.status == "WRONG" || r.status == "error")
      notes += fmt::format("- {} n={}: {} — {}\n", r.method, r.n, r.status, r.note);
    if (r.status == "skipped" && !skips.count(r.method)) skips[r.method] = {r.n, r.note};
  }
  for (const auto& [method, skip] : skips)
    notes += fmt::format("- {}: skipped from n={} ({})\n", method, skip.first, skip.second);
  for (const auto& [method, detail] : details) notes += fmt::format("- {}: {}\n", method, detail);
  if (!notes.empty()) out << "\nNotes\n" << notes;

  // The headline: at the largest size, the fastest correct gpgpu method against the others.
  for (auto n = report.options.sizes.rbegin(); n != report.options.sizes.rend(); ++n) {
    const PointResult* best = nullptr;
    for (const auto& r : report.results) {
      if (r.n == *n && r.family == "gl" && r.status == "ok" &&
          (best == nullptr || r.kernel_gflops > best->kernel_gflops)) {
        best = &r;
      }
    }
    if (best == nullptr) continue;
    out << fmt::format(
        "\nAt n = {}: fastest gpgpu method {} at {} GFLOPS (kernel), {} end to end\n", *n,
        best->method, format_gflops(best->kernel_gflops), format_gflops(best->wall_gflops));
    for (const auto& r : report.results) {
      if (r.n != *n || r.family == "gl" || r.status != "ok") continue;
      out << fmt::format("  vs {}: {} GFLOPS -> {:.2f}x (end to end {:.2f}x)\n", r.method,
                         format_gflops(r.kernel_gflops), best->kernel_gflops / r.kernel_gflops,
                         best->wall_gflops / r.wall_gflops);
    }
    break;
  }
  out << fmt::format("\ntotal time {:.1f} s\n", f.seconds);
}

void write_files(const std::filesystem::path& out_dir, const BenchReport& report) {
  const RunFacts& f = report.facts;
  const MatmulBenchOptions& o = report.options;
  Table table("matmul", "matmul benchmark, C = A B, float32, n x n x n",
              {// A point's columns,
               "method", "family", "m", "k", "n", "status", "kernel_ms", "wall_ms", "kernel_gflops",
               "wall_gflops", "kernel_cpu_ms", "gflop_per_cpu_second", "kernel_clock", "runs",
               "detail", "note",
               // then its check's.
               "check", "checked_entries", "wrong_entries", "max_abs_error", "relative_error",
               "worst_normalised_error", "bound"});
  for (const auto& r : report.results) {
    const CheckResult& c = r.check;
    table.add({// The point's cells,
               r.method, r.family, r.m, r.k, r.n, r.status, r.kernel_ms, r.wall_ms, r.kernel_gflops,
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
                         f.cpu_model, f.hardware_threads, report.openblas_config, f.load_before,
                         f.load_after));
  table.note("cuda: " + f.cuda);
  table.note(fmt::format(
      "options: sizes {}; repeats {}; warmup {}; max seconds per point {}, per run {}; every "
      "entry checked up to n = {}, else {} sampled; seed {}",
      fmt::join(o.sizes, ", "), o.repeats, o.warmup, o.max_seconds_per_point, o.max_seconds_per_run,
      o.full_check_max_n, o.sampled_entries, report.seed));
  table.note("an entry is correct when |c - c64| <= (k + 2) * 2^-24 * sum_i |a_ri b_ic|");
  table.note("GFLOPS: 2 m n k / median time");
  for (const auto& [method, why] : report.unavailable)
    table.note(fmt::format("{}: not run ({})", method, why));
  table.note(fmt::format("total {:.1f} s", f.seconds));
  table.write(out_dir, "", f.renderer, f.date);
}

std::string draw_charts(const std::filesystem::path& out_dir, const BenchReport& report) {
  Chart chart(out_dir, "matmul_chart",
              fmt::format("set datafile separator whitespace\nset logscale xy\n"
                          "set grid xtics ytics mxtics mytics lc rgb '#dddddd'\n"
                          "set key outside right top\n"
                          "set xlabel 'matrix size n (n x n times n x n)'\nset xrange [{}:{}]\n",
                          report.options.sizes.front() * 0.9, report.options.sizes.back() * 1.1));
  // One block per method, correct results only: a WRONG result's speed means nothing.
  std::vector<std::pair<std::string, int>> plotted;  // method, block
  for (const auto& m : report.methods) {
    std::string rows;
    for (int n : report.options.sizes) {
      const PointResult* r = find(report, m, n);
      if (r == nullptr || r->status != "ok") continue;
      rows += fmt::format("{} {} {} {}\n", n, number(r->kernel_gflops), number(r->wall_gflops),
                          number(r->check.relative_error));
    }
    if (const int block = chart.block(m, rows); block >= 0) plotted.emplace_back(m, block);
  }
  const std::string title =
      fmt::format("{} — {}", report.facts.renderer, report.facts.date.substr(0, 10));
  const auto plot = [&](const char* png, const std::string& heading, const char* ylabel,
                        int column) {
    // A colour of its own per method; the line style tells the family: gpgpu solid, CPU
    // dashed, CUDA dotted. GFLOPS read best as plain numbers, relative errors as powers of ten.
    static constexpr const char* colours[] = {
        "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
        "#bcbd22", "#17becf", "#000000", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5"};
    std::vector<std::string> series;
    for (const auto& [method, block] : plotted) {
      std::string family = "gl";
      for (const auto& r : report.results) {
        if (r.method == method) family = r.family;
      }
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

}  // namespace gpgpu::bench::detail
