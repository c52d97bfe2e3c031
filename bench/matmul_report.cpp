// Writing the matmul benchmark's results: markdown tables, JSON, CSV, gnuplot charts.
#include "matmul_report.hpp"

#include <cmath>
#include <fstream>
#include <iterator>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gnuplot.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::bench::detail {

namespace {

const PointResult* find(const BenchReport& report, const std::string& method, int n) {
  for (const auto& r : report.results) {
    if (r.method == method && r.n == n) return &r;
  }
  return nullptr;
}

std::string status_cell(const PointResult* r) {
  if (r == nullptr) return "";
  if (r->status == "WRONG") return "WRONG";
  if (r->status == "skipped") return "skip";
  if (r->status == "error") return "error";
  return {};
}

template <class Cell>
void print_table(std::ostream& out, const BenchReport& report, const std::string& corner,
                 Cell cell) {
  std::size_t width = corner.size();
  for (const auto& m : report.methods) width = std::max(width, m.size());
  out << "| " << fmt::format("{:<{}}", corner, width);
  for (int n : report.sizes) out << " | " << fmt::format("{:>8}", n);
  out << " |\n|" << std::string(width + 2, '-');
  for (std::size_t i = 0; i < report.sizes.size(); ++i) out << "|" << std::string(9, '-') << ":";
  out << "|\n";
  for (const auto& m : report.methods) {
    out << "| " << fmt::format("{:<{}}", m, width);
    for (int n : report.sizes) {
      const PointResult* r = find(report, m, n);
      std::string text = status_cell(r);
      if (r != nullptr && text.empty()) text = cell(*r);
      out << " | " << fmt::format("{:>8}", text);
    }
    out << " |\n";
  }
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char ch : s) {
    if (ch == '"') quoted += '"';
    quoted += ch;
  }
  return quoted + "\"";
}

std::string number(double x) {
  return std::isfinite(x) ? fmt::format("{:.6g}", x) : "inf";
}

std::string gnuplot_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

}  // namespace

std::string format_gflops(double g) {
  if (!(g > 0) || !std::isfinite(g)) return "-";
  if (g >= 100) return fmt::format("{:.0f}", g);
  if (g >= 10) return fmt::format("{:.1f}", g);
  if (g >= 1) return fmt::format("{:.2f}", g);
  return fmt::format("{:.3g}", g);
}

void print_report(std::ostream& out, const BenchReport& report) {
  out << "\nmatmul benchmark, C = A B, float32, n x n x n\n"
      << "device: " << report.renderer << " (" << report.vendor << ", " << report.gl_version
      << ")\n"
      << "cpu: " << report.cpu_model << ", " << report.hardware_threads << " threads; OpenBLAS "
      << report.openblas_config << "\n"
      << "cuda: " << report.cuda << "\n"
      << "load average (1, 5, 15 min) before: " << report.load_before
      << ", after: " << report.load_after << "\n"
      << "date: " << report.date << "   seed: " << report.seed << "\n";
  if (!report.command.empty()) out << "command: " << report.command << "\n";

  out << "\nKernel GFLOPS (data already on the device; median of up to " << report.repeats
      << " runs after " << report.warmup << " warm-up)\n\n";
  print_table(out, report, "method \\ n",
              [](const PointResult& r) { return format_gflops(r.kernel_gflops); });
  if (report.is_software) {
    out << "\nGFLOP per CPU-second (kernel runs; CPU time of this process, llvmpipe's threads "
           "included; less moved than GFLOPS by other processes competing for the cores, though "
           "threads that spin while they wait count)\n\n";
    print_table(out, report, "method \\ n",
                [](const PointResult& r) { return format_gflops(r.gflop_per_cpu_second); });
  }
  out << "\nEnd-to-end GFLOPS (host arrays in and out: upload, kernel, download)\n\n";
  print_table(out, report, "method \\ n",
              [](const PointResult& r) { return format_gflops(r.wall_gflops); });
  out << "\nPrecision: max |c - c64| / max |c64| over the checked entries (full check up to n = "
      << report.full_check_max_n << ", else " << report.sampled_entries
      << " sampled + corners)\n\n";
  print_table(out, report, "method \\ n",
              [](const PointResult& r) { return fmt::format("{:.1e}", r.check.relative_error); });
  out << "\nPrecision: worst |c - c64| / (2^-24 sum_i |a_ri b_ic|); correct means <= k + 2\n\n";
  print_table(out, report, "method \\ n",
              [](const PointResult& r) { return fmt::format("{:.2f}", r.check.worst_normalised); });

  std::string notes;
  for (const auto& [method, why] : report.unavailable)
    notes += fmt::format("- {}: not run ({})\n", method, why);
  std::map<std::string, std::string> details;
  for (const auto& r : report.results) {
    if (!r.detail.empty()) details[r.method] = r.detail;
    if (r.status == "WRONG" || r.status == "error") {
      notes += fmt::format("- {} n={}: {} — {}\n", r.method, r.n, r.status, r.note);
    }
  }
  std::map<std::string, std::pair<int, std::string>> skips;  // first skipped size per method
  for (const auto& r : report.results) {
    if (r.status == "skipped" && !skips.count(r.method)) skips[r.method] = {r.n, r.note};
  }
  for (const auto& [method, skip] : skips) {
    notes += fmt::format("- {}: skipped from n={} ({})\n", method, skip.first, skip.second);
  }
  for (const auto& [method, detail] : details) notes += fmt::format("- {}: {}\n", method, detail);
  if (!notes.empty()) out << "\nNotes\n" << notes;

  // The headline: at the largest size, the fastest correct gpgpu method against the others.
  for (auto n = report.sizes.rbegin(); n != report.sizes.rend(); ++n) {
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
  out << fmt::format("\ntotal time {:.1f} s\n", report.total_seconds);
}

void write_json(const std::filesystem::path& file, const BenchReport& report) {
  using nlohmann::json;
  json results = json::array();
  for (const auto& r : report.results) {
    const auto finite = [](double x) { return std::isfinite(x) ? json(x) : json(nullptr); };
    results.push_back({{"method", r.method},
                       {"family", r.family},
                       {"m", r.m},
                       {"k", r.k},
                       {"n", r.n},
                       {"status", r.status},
                       {"note", r.note},
                       {"detail", r.detail},
                       {"kernel_clock", r.kernel_clock},
                       {"runs", r.runs},
                       {"kernel_ms", r.kernel_ms},
                       {"wall_ms", r.wall_ms},
                       {"kernel_gflops", r.kernel_gflops},
                       {"wall_gflops", r.wall_gflops},
                       {"kernel_cpu_ms", r.kernel_cpu_ms},
                       {"gflop_per_cpu_second", r.gflop_per_cpu_second},
                       {"check",
                        {{"kind", r.check_kind},
                         {"entries", r.check.checked},
                         {"wrong", r.check.wrong},
                         {"max_abs_error", finite(r.check.max_abs_error)},
                         {"relative_error", finite(r.check.relative_error)},
                         {"worst_normalised_error", finite(r.check.worst_normalised)},
                         {"bound", r.check.bound},
                         {"first_wrong", r.check.first_wrong}}}});
  }
  json unavailable = json::array();
  for (const auto& [method, why] : report.unavailable)
    unavailable.push_back({{"method", method}, {"reason", why}});
  const json doc = {
      {"benchmark", "matmul"},
      {"date", report.date},
      {"command", report.command},
      {"seed", report.seed},
      {"device",
       {{"renderer", report.renderer},
        {"vendor", report.vendor},
        {"gl_version", report.gl_version},
        {"glsl_version", report.glsl_version},
        {"is_software", report.is_software},
        {"timer_query", report.timer_query}}},
      {"host",
       {{"cpu", report.cpu_model},
        {"hardware_threads", report.hardware_threads},
        {"loadavg_before", report.load_before},
        {"loadavg_after", report.load_after},
        {"openblas", report.openblas_config}}},
      {"cuda", report.cuda},
      {"options",
       {{"sizes", report.sizes},
        {"repeats", report.repeats},
        {"warmup", report.warmup},
        {"max_seconds_per_point", report.max_seconds_per_point},
        {"max_seconds_per_run", report.max_seconds_per_run},
        {"full_check_max_n", report.full_check_max_n},
        {"sampled_entries", report.sampled_entries}}},
      {"error_bound", "entry correct when |c - c64| <= (k + 2) * 2^-24 * sum_i |a_ri b_ic|"},
      {"gflops", "2 m n k / median time"},
      {"unavailable", unavailable},
      {"results", results},
      {"total_seconds", report.total_seconds}};
  std::ofstream out(file, std::ios::trunc);
  out << doc.dump(2) << '\n';
  if (!out) throw Error(fmt::format("matmul bench: cannot write {}", file.string()));
}

void write_csv(const std::filesystem::path& file, const BenchReport& report) {
  std::ofstream out(file, std::ios::trunc);
  out << "method,family,m,k,n,status,kernel_ms,wall_ms,kernel_gflops,wall_gflops,kernel_cpu_ms,"
         "gflop_per_cpu_second,kernel_clock,runs,"
         "check,checked_entries,wrong_entries,max_abs_error,relative_error,worst_normalised_error,"
         "bound,detail,note\n";
  for (const auto& r : report.results) {
    out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                       csv_field(r.method), r.family, r.m, r.k, r.n, r.status, number(r.kernel_ms),
                       number(r.wall_ms), number(r.kernel_gflops), number(r.wall_gflops),
                       number(r.kernel_cpu_ms), number(r.gflop_per_cpu_second), r.kernel_clock,
                       r.runs, r.check_kind, r.check.checked, r.check.wrong,
                       number(r.check.max_abs_error), number(r.check.relative_error),
                       number(r.check.worst_normalised), number(r.check.bound), csv_field(r.detail),
                       csv_field(r.note));
  }
  if (!out) throw Error(fmt::format("matmul bench: cannot write {}", file.string()));
}

std::string draw_charts(const std::filesystem::path& out_dir, const BenchReport& report) {
  // Data: one block per method (gnuplot's `index`), correct results only — a WRONG result's
  // speed means nothing.
  std::vector<std::string> plotted;
  {
    std::ofstream dat(out_dir / "matmul_chart.dat", std::ios::trunc);
    for (const auto& m : report.methods) {
      std::string block;
      for (int n : report.sizes) {
        const PointResult* r = find(report, m, n);
        if (r == nullptr || r->status != "ok") continue;
        block += fmt::format("{} {} {} {}\n", n, number(r->kernel_gflops), number(r->wall_gflops),
                             number(r->check.relative_error));
      }
      if (block.empty()) continue;
      dat << "# " << m << "\n" << block << "\n\n";
      plotted.push_back(m);
    }
    if (!dat) throw Error("matmul bench: cannot write matmul_chart.dat");
  }
  if (plotted.empty()) return "no correct results to chart";

  const std::string title = fmt::format("{} — {}", report.renderer, report.date.substr(0, 10));
  std::string script = fmt::format(
      "# Made by the gpgpu matmul benchmark; run `gnuplot matmul_chart.gp` here to redraw.\n"
      "set terminal pngcairo size 1100,700 noenhanced font 'DejaVu Sans,11'\n"
      "set datafile separator whitespace\n"
      "set logscale xy\n"
      "set grid xtics ytics mxtics mytics lc rgb '#dddddd'\n"
      "set key outside right top\n"
      "set xlabel 'matrix size n (n x n times n x n)'\n"
      "set xrange [{}:{}]\n",
      report.sizes.front() * 0.9, report.sizes.back() * 1.1);
  const auto plot = [&](const char* file, const std::string& heading, const char* ylabel,
                        int column) {
    // GFLOPS read best as plain numbers, relative errors as powers of ten.
    script +=
        fmt::format("set output '{}'\nset title {}\nset ylabel '{}'\nset format y '{}'\nplot ",
                    file, gnuplot_string(heading), ylabel, column == 4 ? "%.0e" : "%g");
    for (std::size_t i = 0; i < plotted.size(); ++i) {
      // A colour of its own per method; the line style tells the family: gpgpu solid, CPU
      // dashed, CUDA dotted.
      static constexpr const char* colours[] = {
          "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
          "#bcbd22", "#17becf", "#000000", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5"};
      std::string family = "gl";
      for (const auto& r : report.results) {
        if (r.method == plotted[i]) family = r.family;
      }
      const int dash = family == "cpu" ? 2 : family == "cuda" ? 3 : 1;
      script += fmt::format(
          "{}'matmul_chart.dat' index {} using 1:{} with linespoints lw 2 dt {} lc rgb '{}' pt {} "
          "title {}",
          i ? ", \\\n     " : "", i, column, dash, colours[i % std::size(colours)],
          static_cast<int>(i % 13) + 1, gnuplot_string(plotted[i]));
    }
    script += "\n";
  };
  plot("matmul_gflops.png", "matmul kernel GFLOPS (data on the device) — " + title, "GFLOPS", 2);
  plot("matmul_gflops_end_to_end.png",
       "matmul end-to-end GFLOPS (upload + kernel + download) — " + title, "GFLOPS", 3);
  plot("matmul_precision.png", "matmul max |c - c64| / max |c64| — " + title, "relative error", 4);
  {
    std::ofstream gp(out_dir / "matmul_chart.gp", std::ios::trunc);
    gp << script;
    if (!gp) throw Error("matmul bench: cannot write matmul_chart.gp");
  }
  if (auto why = gnuplot::draw(out_dir, "matmul_chart.gp"); !why.empty()) return why;
  return "charts: matmul_gflops.png, matmul_gflops_end_to_end.png, matmul_precision.png";
}

}  // namespace gpgpu::bench::detail
