// bench/primitives_report.hpp — the primitives benchmark's results and how they are written
// out: markdown tables (with the ratios to CUB and the targets), JSON, CSV, gnuplot charts.
// Internal to gpgpu_bench_primitives.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "harness.hpp"

namespace gpgpu::bench::primitives_detail {

struct Row {
  std::string primitive;  // reduce, scan, sort, sort_pairs, histogram, copy
  std::string contender;  // gpgpu, cub, cpu, cuda copy, gpgpu copy
  std::string family;     // gpgpu, cuda, cpu
  std::size_t n = 0;
  double ms = -1;    // median time of one call
  double bytes = 0;  // the minimal traffic counted for GB/s (see the report notes)
  int runs = 0;
  std::string timing{};  // where the time comes from
  std::string status{};  // ok, WRONG, skipped, error
  std::string note{};    // the check, or why it was skipped
  double gbps() const { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0; }
  double gelems() const { return ms > 0 ? static_cast<double>(n) / (ms * 1e-3) / 1e9 : 0; }
};

struct SweepRow {
  std::string primitive;
  std::size_t n = 0;
  std::string tuning;
  double ms = -1, bytes = 0;
  std::string status{}, note{};
  double gbps() const { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0; }
};

struct Report {
  RunFacts facts;
  std::string cpu_backend, timing;
  std::vector<std::size_t> sizes;
  std::vector<Row> rows;
  std::vector<SweepRow> sweep;
};

// Bytes per element the GB/s figures count, per primitive.
double bytes_per_element(const std::string& primitive);

void print(std::ostream& out, const Report& report);
// primitives.json and primitives.csv in dir.
void write_files(const std::filesystem::path& dir, const Report& report);
// primitives_chart.dat/.gp and one PNG per primitive (GB/s against n); a line saying what
// was drawn or why not.
std::string draw_charts(const std::filesystem::path& dir, const Report& report);

}  // namespace gpgpu::bench::primitives_detail
