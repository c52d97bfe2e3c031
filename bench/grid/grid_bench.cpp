// The earth grid benchmark (see grid_bench.hpp).
#include "grid_bench.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpgpu/cache.hpp"
#include "gpgpu/earth/diagnostics.hpp"
#include "gpgpu/earth/grid.hpp"
#include "gpgpu/earth/grid_cache.hpp"
#include "harness.hpp"

namespace gpgpu::bench {

namespace {

namespace ge = gpgpu::earth;
namespace fs = std::filesystem;

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux: kilobytes
}

// GPGPU_CACHE_DIR names a fresh folder while this lives: the user's cache is not touched.
struct TemporaryCache {
  const fs::path dir = fs::temp_directory_path() / fmt::format("gpgpu-grid-bench-{}", ::getpid());
  std::optional<std::string> previous;
  TemporaryCache() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    if (const char* old = std::getenv("GPGPU_CACHE_DIR")) previous = old;
    ::setenv("GPGPU_CACHE_DIR", dir.c_str(), 1);
  }
  ~TemporaryCache() {
    previous ? ::setenv("GPGPU_CACHE_DIR", previous->c_str(), 1) : ::unsetenv("GPGPU_CACHE_DIR");
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

// Wall times of repeated builds (or reads) and the last one's report; the median is NaN and
// the JSON null where none ran.
struct Timed {
  std::vector<double> seconds;
  std::optional<ge::GridBuildReport> report;
  double median() const { return bench::median(seconds); }
  Cell cell() const { return report ? Cell(median(), 3) : Cell::missing(); }
  nlohmann::json json() const { return report ? nlohmann::json(seconds) : nlohmann::json(); }
  std::string report_text() const { return report ? report->to_string() : ""; }
  // Times a build (or a read); keeps its report, returns its grid.
  ge::Grid time(const std::function<ge::GridBuild()>& build) {
    const auto start = Clock::now();
    ge::GridBuild b = build();
    seconds.push_back(ms_since(start) / 1e3);
    report = std::move(b.report);
    return std::move(b.grid);
  }
};

struct Row {
  int level = 0;
  Timed cpu, gpu, auto_first, auto_kept, warm;
  std::string cpu_statistics = "-", gpu_statistics = "-";
  // The largest relative difference of the statistics and of the points, in mean spacings
  // (-1: not compared).
  double statistics_difference = -1, point_difference = -1;
  bool warm_same_bits = false;
  double build_rss_mb = 0, rss_mb = 0;
};

std::string statistics_text(const ge::Grid& g) {
  constexpr double radius_km = 6371.22;
  const auto s = ge::statistics(g);
  return fmt::format("{:.2f} / {:.2f} / {:.2f}  {:.4f}", s.min_spacing * radius_km,
                     s.mean_spacing * radius_km, s.max_spacing * radius_km, s.area_ratio);
}

// How far grid a is from grid b. Where the grids list their cells in other orders (a point
// that moved across a Morton cell's boundary), each point of `a` is compared with the nearest
// point of `b`.
void compare(const ge::Grid& a, const ge::Grid& b, Row& r) {
  const auto sa = ge::statistics(a), sb = ge::statistics(b);
  r.statistics_difference = r.point_difference = 0;
  for (auto [x, y] : {std::pair{sa.min_spacing, sb.min_spacing},
                      {sa.mean_spacing, sb.mean_spacing},
                      {sa.max_spacing, sb.max_spacing},
                      {sa.area_ratio, sb.area_ratio}}) {
    r.statistics_difference = std::max(r.statistics_difference, std::abs(x / y - 1));
  }
  const bool same_order = a.triangles == b.triangles;
  std::optional<ge::Locator> locator;
  if (!same_order) locator.emplace(b);
  for (std::size_t i = 0; i < a.cell_count(); ++i) {
    const std::size_t j = same_order ? i : locator->locate(a.centres[i]).nearest;
    r.point_difference =
        std::max(r.point_difference, ge::norm(a.centres[i] - b.centres[j]) / sa.mean_spacing);
  }
}

// The builds of one level, interleaved repeat by repeat (a machine whose load drifts slows
// them alike); the grids are compared, then let go before the warm reads, so that the peak
// memory of a build and of a read are each one grid's.
Row measure(const GridBenchOptions& o, const Context& ctx, const TemporaryCache& cache, int level) {
  Row r;
  r.level = level;
  const bool cpu = level <= o.cpu_max_level;
  const int repeats = level >= 9 ? 1 : o.repeats;
  const auto build = [&](ge::GridDevice device, Timed& into) {
    return into.time([&] {
      return ge::build_grid_reported({.level = level, .device = device},
                                     device == ge::GridDevice::Cpu ? nullptr : &ctx);
    });
  };
  std::optional<ge::Grid> cpu_grid, gpu_grid;
  if (cpu) {
    fs::remove_all(cache.dir / "earth-grid-device");  // Auto times both devices again
    build(ge::GridDevice::Auto, r.auto_first);
  }
  for (int rep = 0; rep < repeats; ++rep) {
    if (cpu) cpu_grid = build(ge::GridDevice::Cpu, r.cpu);
    if (o.gpu) gpu_grid = build(ge::GridDevice::Gpu, r.gpu);
    if (cpu) build(ge::GridDevice::Auto, r.auto_kept);
  }
  r.build_rss_mb = peak_rss_mb();
  if (cpu_grid) r.cpu_statistics = statistics_text(*cpu_grid);
  if (gpu_grid) r.gpu_statistics = statistics_text(*gpu_grid);
  if (cpu_grid && gpu_grid) compare(*gpu_grid, *cpu_grid, r);
  const ge::GridOptions key_options{.level = level, .device = ge::GridDevice::Cpu};
  const std::vector<std::byte> stored = ge::encode_grid(cpu_grid ? *cpu_grid : *gpu_grid);
  cpu_grid.reset();
  gpu_grid.reset();
  cache::Store("earth-grids", ge::grid_format_version, ge::grid_cache_limit)
      .store(ge::grid_cache_key(key_options), stored);
  for (int rep = 0; rep < repeats; ++rep) {
    r.warm_same_bits =
        ge::encode_grid(r.warm.time([&] { return ge::cached_grid(key_options); })) == stored;
  }
  r.rss_mb = peak_rss_mb();
  return r;
}

Cell ratio_of(double a, double b) {
  return std::isfinite(a) && std::isfinite(b) && b > 0 ? Cell(a / b) : Cell::missing();
}

}  // namespace

int run_grid_bench(const GridBenchOptions& o, const Context& ctx) {
  const TemporaryCache cache;
  std::cout << fmt::format("device: {}; CPU threads: {}\n", ctx.info().renderer,
                           ge::build_grid_reported({.level = 0}).report.threads);
  if (o.gpu) ge::build_grid({.level = 2, .device = ge::GridDevice::Gpu}, &ctx);  // compiles
  std::vector<Row> rows;
  for (int level : o.levels) {
    const Row& r = rows.emplace_back(measure(o, ctx, cache, level));
    for (const Timed* t : {&r.cpu, &r.gpu, &r.auto_kept, &r.warm}) {
      if (o.verbose) std::cout << t->report_text();
    }
  }
  std::cout << "\nMedian wall seconds per build (Auto 1st: with its timed trial; Auto: "
               "following the timing it kept; warm: read from the disk cache; peak MB: the "
               "process's peak resident memory after the builds of the level):\n";
  Table table({"level", "cells", "CPU s", "GPU s", "Auto 1st", "Auto s", "warm s", "CPU/GPU",
               "Auto/best", "peak MB"});
  for (const auto& r : rows) {
    const double best = std::fmin(r.cpu.median(), r.gpu.median());
    table.add({Cell(r.level), Cell(ge::cell_count_at(r.level)), r.cpu.cell(), r.gpu.cell(),
               r.auto_first.cell(), r.auto_kept.cell(), r.warm.cell(),
               ratio_of(r.cpu.median(), r.gpu.median()), ratio_of(r.auto_kept.median(), best),
               Cell(r.build_rss_mb, 0)});
  }
  table.print(std::cout);
  std::cout << "\nThe grids: spacing min / mean / max (km) and area ratio; largest relative "
               "difference of those four, GPU against CPU; largest point distance in mean "
               "spacings; whether the warm read gave the built grid's bits.\n";
  nlohmann::json levels = nlohmann::json::array();
  for (const auto& r : rows) {
    std::cout << fmt::format("{:>5}  CPU {}  GPU {}", r.level, r.cpu_statistics, r.gpu_statistics);
    if (r.statistics_difference >= 0) {
      std::cout << fmt::format("  stats {:.1e}  points {:.1e}", r.statistics_difference,
                               r.point_difference);
    }
    std::cout << fmt::format("  warm bits {}\n", r.warm_same_bits ? "same" : "DIFFER");
    levels.push_back({{"level", r.level},
                      {"cells", ge::cell_count_at(r.level)},
                      {"cpu_s", r.cpu.json()},
                      {"gpu_s", r.gpu.json()},
                      {"auto_first_s", r.auto_first.json()},
                      {"auto_s", r.auto_kept.json()},
                      {"warm_s", r.warm.json()},
                      {"gpu_cpu_statistics_difference", r.statistics_difference},
                      {"gpu_cpu_point_difference_spacings", r.point_difference},
                      {"warm_same_bits_as_built", r.warm_same_bits},
                      {"build_peak_rss_mb", r.build_rss_mb},
                      {"peak_rss_mb", r.rss_mb},
                      {"gpu_report", r.gpu.report_text()},
                      {"cpu_report", r.cpu.report_text()}});
  }
  const fs::path file = o.out / "grid" / "bench-grid.json";
  write_file(file,
             nlohmann::json{{"device", ctx.info().renderer}, {"levels", levels}}.dump(2) + "\n");
  std::cout << "wrote " << file.string() << "\n";
  return 0;
}

}  // namespace gpgpu::bench
