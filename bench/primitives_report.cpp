// The report of `gpgpu bench primitives` (primitives_runner.hpp): a table per primitive, the
// same-run ratios against their targets, the sweep; JSON, CSV and charts.
#include <algorithm>
#include <bit>
#include <iostream>
#include <utility>

#include <fmt/format.h>

#include "primitives_runner.hpp"

namespace gpgpu::bench::primitives_detail {

namespace {

// Sizes are powers of two.
std::string size_label(std::size_t n) {
  return fmt::format("2^{}", std::countr_zero(n));
}

// The row of one point; only where it is ok with `ok`.
const Row* find(const Report& r, const std::string& primitive, const std::string& contender,
                std::size_t n, bool ok = false) {
  for (const auto& row : r.rows) {
    if (row.primitive == primitive && row.contender == contender && row.n == n)
      return ok && row.status != "ok" ? nullptr : &row;
  }
  return nullptr;
}

// The contenders of a primitive, in the order they first ran.
std::vector<std::string> contenders_of(const Report& r, const std::string& primitive) {
  std::vector<std::string> names;
  for (const auto& row : r.rows) {
    if (row.primitive == primitive &&
        std::find(names.begin(), names.end(), row.contender) == names.end())
      names.push_back(row.contender);
  }
  return names;
}

// The targets: gpgpu's speed as a fraction of CUB's (issue 18: scan at 2^24..2^28, sorts at
// 2^24..2^28, reduce at 2^28, histogram from 2^16), and of the CPU algorithms', the yardstick
// on a CPU device (llvmpipe): at least their speed for reduce and scan, no target otherwise.
struct Target {
  const char* primitive;
  double cub, cpu;
};
const Target targets[] = {{"reduce", 0.9, 1.0},
                          {"scan", 0.8, 1.0},
                          {"sort", 0.6, 0.0},
                          {"sort_pairs", 0.5, 0.0},
                          {"histogram", 0.8, 0.0}};

// One row per primitive of the reference's time over the contender's at each size (above 1:
// the contender is faster); nothing at all when the reference did not run (no CUDA device for
// CUB).
void print_ratios(std::ostream& out, const Report& r, const std::string& reference,
                  const std::string& title, double Target::*target,
                  const std::string& contender = "gpgpu") {
  std::vector<std::string> columns{"primitive", "target"};
  for (std::size_t n : r.sizes) columns.push_back(size_label(n));
  Table table("", title, columns);
  for (const auto& t : targets) {
    std::vector<Cell> line{t.primitive, t.*target > 0 ? fmt::format("{:.1f}x", t.*target) : ""};
    bool any = false;
    for (std::size_t n : r.sizes) {
      const Row *g = find(r, t.primitive, contender, n, true),
                *c = find(r, t.primitive, reference, n, true);
      line.emplace_back(g && c ? fmt::format("{:.2f}x", c->ms / g->ms) : "");
      any |= g && c;
    }
    if (any) table.add(std::move(line));
  }
  if (!table.empty()) table.print(out, true);
}

void print(std::ostream& out, const Report& r) {
  const RunFacts& f = r.facts;
  out << fmt::format(
      "# gpgpu bench primitives\n\n{} ({}), {}\ncommand: {}\nCPU: {} ({})\nCUDA: {}\n"
      "timing: {}\nload: {} before, {} after\n",
      f.renderer, f.gl_version, f.date, f.command, f.cpu_model, r.cpu_backend, f.cuda, r.timing,
      f.load_before, f.load_after);
  for (const auto& p : primitives_bench_names()) {
    const auto names = contenders_of(r, p);
    if (names.empty()) continue;
    std::vector<std::string> columns{"n"};
    columns.insert(columns.end(), names.begin(), names.end());
    Table table("",
                fmt::format("## {} (GB/s counts {} bytes per element)", p, bytes_per_element(p)),
                columns);
    for (std::size_t n : r.sizes) {
      std::vector<Cell> line{size_label(n)};
      bool any = false;
      for (const auto& c : names) {
        const Row* row = find(r, p, c, n);
        any |= row != nullptr;
        line.emplace_back(!row ? ""
                          : row->status != "ok"
                              ? row->status
                              : fmt::format("{:.3g} GB/s, {:.3g} ms", row->gbps, row->ms));
      }
      if (any) table.add(std::move(line));
    }
    table.print(out, true);
  }
  // gpgpu, and the other kernel family when the bench timed it (--paths both).
  for (const char* contender : {"gpgpu", "gpgpu-shared", "gpgpu-subgroups"}) {
    print_ratios(out, r, "cub", fmt::format("## {} / CUB (same run)", contender), &Target::cub,
                 contender);
  }
  print_ratios(out, r, "cpu",
               "## gpgpu / parallel CPU (same run; the target on CPU devices: 1.0x for reduce "
               "and scan)",
               &Target::cpu);
  out << "\n";
  const char* heading = "Not measured or wrong:\n";
  for (const auto& row : r.rows) {
    if (row.status == "ok") continue;
    out << std::exchange(heading, "")
        << fmt::format("- {} {} n={}: {} — {}\n", row.primitive, row.contender, size_label(row.n),
                       row.status, row.note);
  }
  if (!r.sweep.empty()) {
    Table table("", "## tuning sweep (gpgpu only)",
                {"primitive", "n", "tuning", "ms", "GB/s", "status"});
    for (const auto& s : r.sweep) {
      table.add({s.primitive, size_label(s.n), s.contender, fmt::format("{:.4g}", s.ms),
                 fmt::format("{:.1f}", s.gbps),
                 s.status == "ok" ? "ok" : s.status + ": " + s.note});
    }
    table.print(out, true);
  }
  out << fmt::format("\ntotal {:.1f} s\n", f.seconds);
}

void write_files(const std::filesystem::path& dir, const Report& r) {
  const RunFacts& f = r.facts;
  Table results("primitives", "gpgpu bench primitives",
                {"primitive", "contender", "family", "n", "ms", "gbps", "gelements_per_s", "bytes",
                 "runs", "timing", "status", "note"});
  for (const auto& x : r.rows) {
    results.add({x.primitive, x.contender, x.family, x.n, x.ms, x.gbps, x.gelements_per_s, x.bytes,
                 x.runs, x.timing, x.status, x.note});
  }
  results.note("command: " + f.command);
  results.note(fmt::format("device: {} ({}), {}", f.renderer, f.gl_version, f.device_kind));
  results.note(fmt::format("CPU: {} ({})", f.cpu_model, r.cpu_backend));
  results.note("CUDA: " + f.cuda);
  results.note("timing: " + r.timing);
  results.note(fmt::format("load: {} before, {} after", f.load_before, f.load_after));
  results.note(fmt::format("sizes: {}; total {:.1f} s", fmt::join(r.sizes, ", "), f.seconds));
  results.write(dir, "", f.renderer, f.date);
  if (r.sweep.empty()) return;
  Table sweep("primitives-sweep", "tuning sweep (gpgpu only)",
              {"primitive", "n", "tuning", "ms", "gbps", "bytes", "status", "note"});
  for (const auto& s : r.sweep)
    sweep.add({s.primitive, s.n, s.contender, s.ms, s.gbps, s.bytes, s.status, s.note});
  sweep.write(dir, "", f.renderer, f.date);
}

// primitives_chart.dat/.gp and one PNG per primitive (GB/s against n); a line saying what was
// drawn or why not.
std::string draw_charts(const std::filesystem::path& dir, const Report& r) {
  Chart chart(
      dir, "primitives_chart",
      "set logscale x 2\nset format x '2^{%L}'\nset grid\nset key left top\n"
      "set xlabel 'elements n'\nset ylabel 'GB/s (see the report for the bytes counted)'\n");
  for (const auto& p : primitives_bench_names()) {
    std::vector<std::string> series;
    for (const auto& c : contenders_of(r, p)) {
      std::string rows;
      for (std::size_t n : r.sizes) {
        if (const Row* row = find(r, p, c, n, true))
          rows += fmt::format("{} {:.6g}\n", n, row->gbps);
      }
      if (const int block = chart.block(fmt::format("{} {}", p, c), rows); block >= 0) {
        series.push_back(
            fmt::format("'primitives_chart.dat' index {} using 1:2 with linespoints lw 2 title {}",
                        block, gnuplot_string(c)));
      }
    }
    chart.plot(fmt::format("primitives_{}.png", p),
               fmt::format("set title {}\n",
                           gnuplot_string(fmt::format("{} — {} ({})", p, r.facts.renderer,
                                                      r.facts.date.substr(0, 10)))),
               series);
  }
  return chart.draw();
}

}  // namespace

double bytes_per_element(const std::string& p) {
  if (p == "reduce" || p == "histogram") return 4;          // one read
  if (p == "scan" || p == "sort" || p == "copy") return 8;  // one read and one write
  if (p == "sort_pairs") return 16;  // keys and values, read and written once
  return 4;
}

void report(const Report& r, const std::filesystem::path& dir, bool charts) {
  std::filesystem::create_directories(dir);
  print(std::cout, r);
  write_files(dir, r);
  std::cout << "wrote " << (dir / "primitives.json").string() << " and primitives.csv\n";
  if (charts) std::cout << draw_charts(dir, r) << "\n";
}

}  // namespace gpgpu::bench::primitives_detail
