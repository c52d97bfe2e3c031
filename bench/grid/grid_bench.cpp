// The earth grid benchmark (see grid_bench.hpp).
#include "grid_bench.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
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

constexpr double radius_km = 6371.22;

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux: kilobytes
}

// GPGPU_CACHE_DIR names a fresh folder while this lives: the user's cache is not touched.
class TemporaryCache {
 public:
  TemporaryCache()
      : dir(fs::temp_directory_path() / fmt::format("gpgpu-grid-bench-{}", ::getpid())) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    if (const char* old = std::getenv("GPGPU_CACHE_DIR")) previous_ = old;
    ::setenv("GPGPU_CACHE_DIR", dir.c_str(), 1);
  }
  ~TemporaryCache() {
    if (previous_) {
      ::setenv("GPGPU_CACHE_DIR", previous_->c_str(), 1);
    } else {
      ::unsetenv("GPGPU_CACHE_DIR");
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  TemporaryCache(const TemporaryCache&) = delete;
  TemporaryCache& operator=(const TemporaryCache&) = delete;
  // Forgets Auto's timing, so that the next Auto build times both devices again.
  void forget_auto_timing() const { fs::remove_all(dir / "earth-grid-device"); }

  fs::path dir;

 private:
  std::optional<std::string> previous_;
};

// Wall times of repeated builds (or reads) and the last one's report.
struct Timed {
  std::vector<double> seconds;
  ge::GridBuildReport report;
  bool ran() const { return !seconds.empty(); }
  double median() const { return bench::median(seconds); }
};

// Times build() into `into`; returns the grid it made.
template <class Build>
ge::Grid timed(Timed& into, const Build& build) {
  const auto start = Clock::now();
  ge::GridBuild b = build();
  into.seconds.push_back(ms_since(start) / 1e3);
  into.report = std::move(b.report);
  return std::move(b.grid);
}

ge::GridOptions options_at(int level, ge::GridDevice device) {
  return {.level = level, .device = device};
}

// The largest relative difference of the statistics and of the points, in mean spacings
// (-1: not compared).
struct Agreement {
  double statistics = -1, points = -1;
};

struct Row {
  int level = 0;
  std::size_t cells = 0;
  Timed cpu, gpu, auto_first, auto_kept, warm;
  std::string cpu_statistics, gpu_statistics;
  Agreement agreement;
  bool warm_same_bits = false;
  double build_rss_mb = 0, rss_mb = 0;
};

// Where the grids list their cells in other orders (a point that moved across a Morton
// cell's boundary), each point of `a` is compared with the nearest point of `b`.
Agreement agreement_of(const ge::Grid& a, const ge::Grid& b) {
  const auto sa = ge::statistics(a), sb = ge::statistics(b);
  Agreement g{0, 0};
  for (auto [x, y] : {std::pair{sa.min_spacing, sb.min_spacing},
                      {sa.mean_spacing, sb.mean_spacing},
                      {sa.max_spacing, sb.max_spacing},
                      {sa.area_ratio, sb.area_ratio}}) {
    g.statistics = std::max(g.statistics, std::abs(x / y - 1));
  }
  const bool same_order = a.triangles == b.triangles;
  std::optional<ge::Locator> locator;
  if (!same_order) locator.emplace(b);
  for (std::size_t i = 0; i < a.cell_count(); ++i) {
    const std::size_t j = same_order ? i : locator->locate(a.centres[i]).nearest;
    g.points = std::max(g.points, ge::norm(a.centres[i] - b.centres[j]) / sa.mean_spacing);
  }
  return g;
}

std::string statistics_text(const ge::Grid& g) {
  const auto s = ge::statistics(g);
  return fmt::format("{:.2f} / {:.2f} / {:.2f}  {:.4f}", s.min_spacing * radius_km,
                     s.mean_spacing * radius_km, s.max_spacing * radius_km, s.area_ratio);
}

// The builds of one level, interleaved repeat by repeat (a machine whose load drifts slows
// them alike); the grids are compared, then let go before the warm reads, so that the peak
// memory of a build and of a read are each one grid's.
Row measure(const GridBenchOptions& o, const Context& ctx, const TemporaryCache& cache, int level) {
  Row r;
  r.level = level;
  r.cells = ge::cell_count_at(level);
  const bool cpu = level <= o.cpu_max_level;
  auto build = [&](ge::GridDevice device, Timed& into) {
    return timed(into, [&] {
      return ge::build_grid_reported(options_at(level, device),
                                     device == ge::GridDevice::Cpu ? nullptr : &ctx);
    });
  };
  std::optional<ge::Grid> cpu_grid, gpu_grid;
  if (cpu) {
    cache.forget_auto_timing();
    build(ge::GridDevice::Auto, r.auto_first);
  }
  for (int rep = 0; rep < (level >= 9 ? 1 : o.repeats); ++rep) {
    if (cpu) cpu_grid = build(ge::GridDevice::Cpu, r.cpu);
    if (o.gpu) gpu_grid = build(ge::GridDevice::Gpu, r.gpu);
    if (cpu) build(ge::GridDevice::Auto, r.auto_kept);
  }
  r.build_rss_mb = peak_rss_mb();
  if (cpu_grid) r.cpu_statistics = statistics_text(*cpu_grid);
  if (gpu_grid) r.gpu_statistics = statistics_text(*gpu_grid);
  if (cpu_grid && gpu_grid) r.agreement = agreement_of(*gpu_grid, *cpu_grid);
  const ge::GridOptions key_options = options_at(level, ge::GridDevice::Cpu);
  const std::vector<std::byte> stored = ge::encode_grid(cpu_grid ? *cpu_grid : *gpu_grid);
  cpu_grid.reset();
  gpu_grid.reset();
  cache::Store("earth-grids", ge::grid_format_version, ge::grid_cache_limit)
      .store(ge::grid_cache_key(key_options), stored);
  for (int rep = 0; rep < (level >= 9 ? 1 : o.repeats); ++rep) {
    r.warm_same_bits =
        ge::encode_grid(timed(r.warm, [&] { return ge::cached_grid(key_options); })) == stored;
  }
  r.rss_mb = peak_rss_mb();
  return r;
}

Cell seconds(const Timed& t) {
  return t.ran() ? Cell(t.median(), 3) : Cell::missing();
}
Cell ratio_of(double a, double b) {
  return std::isfinite(a) && std::isfinite(b) && b > 0 ? Cell(a / b) : Cell::missing();
}

void print_times(const std::vector<Row>& rows) {
  Table table({"level", "cells", "CPU s", "GPU s", "Auto 1st", "Auto s", "warm s", "CPU/GPU",
               "Auto/best", "peak MB"});
  for (const auto& r : rows) {
    const double best = std::fmin(r.cpu.median(), r.gpu.median());
    table.add({Cell(r.level), Cell(r.cells), seconds(r.cpu), seconds(r.gpu), seconds(r.auto_first),
               seconds(r.auto_kept), seconds(r.warm), ratio_of(r.cpu.median(), r.gpu.median()),
               ratio_of(r.auto_kept.median(), best), Cell(r.build_rss_mb, 0)});
  }
  table.print(std::cout);
}

nlohmann::json print_grids(const std::vector<Row>& rows) {
  std::cout << "\nThe grids: spacing min / mean / max (km) and area ratio; largest relative "
               "difference of those four, GPU against CPU; largest point distance in mean "
               "spacings; whether the warm read gave the built grid's bits.\n";
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rows) {
    std::string line = fmt::format("{:>5}  CPU {}  GPU {}", r.level,
                                   r.cpu_statistics.empty() ? "-" : r.cpu_statistics,
                                   r.gpu_statistics.empty() ? "-" : r.gpu_statistics);
    if (r.agreement.statistics >= 0) {
      line +=
          fmt::format("  stats {:.1e}  points {:.1e}", r.agreement.statistics, r.agreement.points);
    }
    std::cout << line << fmt::format("  warm bits {}\n", r.warm_same_bits ? "same" : "DIFFER");
    auto times = [](const Timed& t) {
      return t.ran() ? nlohmann::json(t.seconds) : nlohmann::json();
    };
    out.push_back({{"level", r.level},
                   {"cells", r.cells},
                   {"cpu_s", times(r.cpu)},
                   {"gpu_s", times(r.gpu)},
                   {"auto_first_s", times(r.auto_first)},
                   {"auto_s", times(r.auto_kept)},
                   {"warm_s", times(r.warm)},
                   {"gpu_cpu_statistics_difference", r.agreement.statistics},
                   {"gpu_cpu_point_difference_spacings", r.agreement.points},
                   {"warm_same_bits_as_built", r.warm_same_bits},
                   {"build_peak_rss_mb", r.build_rss_mb},
                   {"peak_rss_mb", r.rss_mb},
                   {"gpu_report", r.gpu.ran() ? r.gpu.report.to_string() : ""},
                   {"cpu_report", r.cpu.ran() ? r.cpu.report.to_string() : ""}});
  }
  return out;
}

}  // namespace

int run_grid_bench(const GridBenchOptions& o, const Context& ctx) {
  const TemporaryCache cache;
  std::cout << fmt::format("device: {}; CPU threads: {}\n", ctx.info().renderer,
                           ge::build_grid_reported({.level = 0}).report.threads);
  if (o.gpu) ge::build_grid(options_at(2, ge::GridDevice::Gpu), &ctx);  // compiles the kernel
  std::vector<Row> rows;
  for (int level : o.levels) {
    rows.push_back(measure(o, ctx, cache, level));
    if (o.verbose) {
      for (const Timed* t :
           {&rows.back().cpu, &rows.back().gpu, &rows.back().auto_kept, &rows.back().warm}) {
        if (t->ran()) std::cout << t->report.to_string();
      }
    }
  }
  std::cout << "\nMedian wall seconds per build (Auto 1st: with its timed trial; Auto: "
               "following the timing it kept; warm: read from the disk cache; peak MB: the "
               "process's peak resident memory after the builds of the level):\n";
  print_times(rows);
  const nlohmann::json grids = print_grids(rows);
  write_file(o.out / "grid" / "bench-grid.json",
             nlohmann::json{{"device", ctx.info().renderer}, {"levels", grids}}.dump(2) + "\n");
  std::cout << "wrote " << (o.out / "grid" / "bench-grid.json").string() << "\n";
  return 0;
}

}  // namespace gpgpu::bench
