// `gpgpu earth grid` (statistics and a picture of the grid), `gpgpu earth bench` (step
// rate, GPU time and bandwidth per level) and the saved-field files of `gpgpu earth`.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "earth_command.hpp"
#include "earth_grid_source.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/earth/cases.hpp"
#include "gpgpu/earth/diagnostics.hpp"
#include "gpgpu/earth/grid_cache.hpp"
#include "gpgpu/earth/model.hpp"
#include "gpgpu/earth/options.hpp"
#include "gpgpu/earth/partition.hpp"
#include "gpgpu/earth/render.hpp"
#include "gpgpu/earth/team.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/profiler.hpp"

namespace gpgpu::cli::earth {

namespace ge = gpgpu::earth;

namespace {

constexpr char magic[8] = {'G', 'P', 'E', 'A', 'R', 'T', 'H', '1'};
constexpr double cuda_copy_gb_s =
    2994;  // H100 device copy, read + write (shared/notes/gpu-facts.md)

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

ge::GridOptions grid_options(int level, const std::string& kind, bool recentre) {
  ge::GridOptions o;
  o.level = level;
  if (kind == "spring") {
    o.optimization = ge::GridOptimization::Spring;
  } else if (kind == "bisection") {
    o.optimization = ge::GridOptimization::Bisection;
  } else {
    throw ArgumentError(fmt::format("earth: --grid must be spring or bisection; got '{}'", kind));
  }
  o.recentre = recentre;
  return o;
}

void write_json(const std::filesystem::path& path, const nlohmann::json& j) {
  write_text(path, j.dump(2) + "\n");
}

void save_field(const std::filesystem::path& path, const SavedField& f) {
  write_file(
      path,
      [&](std::ostream& out) {
        const std::int32_t level = f.level, case_number = f.case_number,
                           recentre = f.recentre ? 1 : 0;
        const std::int32_t kind = f.grid_kind == "spring" ? 1 : 0;
        const std::uint64_t count = f.values.size();
        out.write(magic, sizeof magic);
        out.write(reinterpret_cast<const char*>(&level), 4);
        out.write(reinterpret_cast<const char*>(&kind), 4);
        out.write(reinterpret_cast<const char*>(&recentre), 4);
        out.write(reinterpret_cast<const char*>(&case_number), 4);
        out.write(reinterpret_cast<const char*>(&f.day), 8);
        out.write(reinterpret_cast<const char*>(&count), 8);
        out.write(reinterpret_cast<const char*>(f.values.data()),
                  static_cast<std::streamsize>(8 * count));
      },
      "earth");
}

SavedField load_field(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("earth: cannot open reference {}", path.string()));
  char m[8];
  in.read(m, 8);
  if (!in || !std::equal(m, m + 8, magic)) {
    throw FormatError(
        fmt::format("earth: {} is not a field saved by gpgpu earth --save", path.string()));
  }
  std::int32_t level = 0, kind = 0, recentre = 0, case_number = 0;
  std::uint64_t count = 0;
  SavedField f;
  in.read(reinterpret_cast<char*>(&level), 4);
  in.read(reinterpret_cast<char*>(&kind), 4);
  in.read(reinterpret_cast<char*>(&recentre), 4);
  in.read(reinterpret_cast<char*>(&case_number), 4);
  in.read(reinterpret_cast<char*>(&f.day), 8);
  in.read(reinterpret_cast<char*>(&count), 8);
  if (!in || level < 0 || level > ge::max_grid_level || count != ge::cell_count_at(level)) {
    throw FormatError(fmt::format("earth: {} has a damaged header (level {}, {} values)",
                                  path.string(), level, count));
  }
  f.level = level;
  f.grid_kind = kind == 1 ? "spring" : "bisection";
  f.recentre = recentre != 0;
  f.case_number = case_number;
  f.values.resize(count);
  in.read(reinterpret_cast<char*>(f.values.data()), static_cast<std::streamsize>(8 * count));
  if (!in) throw FormatError(fmt::format("earth: {} is truncated", path.string()));
  return f;
}

void add_grid_subcommand(CLI::App& earth, std::function<int()>& chosen) {
  auto* sub = earth.add_subcommand(
      "grid",
      "Build (or read from the cache) the icosahedral grid, print its statistics, write "
      "it to a grid file, draw it");
  struct Options {
    int level = 5;
    std::string grid = "spring", out, picture, device = "auto";
    bool no_recentre = false;
    int size = 720;
    GridSource source;
  };
  auto o = std::make_shared<Options>();
  sub->add_option("-l,--level", o->level, "Grid level n: 10*4^n + 2 cells")
      ->check(CLI::Range(0, ge::max_grid_level));
  sub->add_option("--grid", o->grid, "spring (Tomita et al. 2002) or bisection");
  sub->add_flag("--no-recentre", o->no_recentre, "Keep points where the optimisation left them");
  sub->add_option("--out", o->out,
                  "Write the grid to this file (for `gpgpu earth --grid-file FILE`)");
  sub->add_option("--picture", o->picture, "Draw the grid into this PNG file");
  sub->add_option("--size", o->size, "Picture size in pixels")->check(CLI::Range(64, 8192));
  sub->add_option("-d,--device", o->device,
                  "The GPU for the spring dynamics: auto, an index, or "
                  "a word of the renderer");
  add_grid_source_options(*sub, o->source);
  sub->callback([&chosen, o]() {
    chosen = [o]() {
      std::optional<Context> ctx;
      if (o->device != "auto") ctx.emplace(ContextOptions{.device = o->device});
      const ge::GridBuild b = obtain_grid(
          o->source, grid_options(o->level, o->grid, !o->no_recentre), ctx ? &*ctx : nullptr);
      std::cout << fmt::format(
          "grid: {} points{}, {}\n", o->grid,
          o->no_recentre ? "" : " recentred to their control volumes' centroids",
          b.report.summary());
      std::cout << ge::statistics(b.grid).to_string();
      if (!o->out.empty()) {
        ge::save_grid_file(b.grid, o->out);
        std::cout << "grid file: " << o->out << "\n";
      }
      if (!o->picture.empty()) {
        ge::write_png(o->picture, ge::render_grid(b.grid, o->size, 35, -60));
        std::cout << "picture: " << o->picture << "\n";
      }
      return 0;
    };
  });
}

namespace {

using Fusion = ge::ModelOptions::StageFusion;

struct Variant {
  std::string name;
  int work_group_size = 128;
  bool preload = false;
  bool replay = true;          // ModelOptions::replay_steps
  Fusion fuse = Fusion::Auto;  // ModelOptions::fuse_stages
  ge::ModelOptions::OneDispatch one = ge::ModelOptions::OneDispatch::Auto;
  int groups = 0;  // ModelOptions::one_dispatch_groups
};

// fused, unfused and unfused-direct: a chain of 5 or 8 dispatches a step, never one.
Variant chained(const std::string& name, bool replay, Fusion fuse) {
  Variant v{name, 128, false, replay, fuse};
  v.one = ge::ModelOptions::OneDispatch::Off;
  return v;
}

Variant parse_variant(const std::string& v) {
  if (v == "default") return {v, 128, false, true, Fusion::Auto};
  if (v == "preload") return {v, 128, true, true, Fusion::Auto};
  if (v == "direct") return {v, 128, false, false, Fusion::Auto};  // every dispatch on its own
  if (v == "fused") return chained(v, true, Fusion::On);
  if (v == "unfused") return chained(v, true, Fusion::Off);  // 8 dispatches a step
  if (v == "unfused-direct") return chained(v, false, Fusion::Off);
  // one, one-g<groups>: the whole step in one dispatch (one_dispatch_steps On)
  if (v == "one" || v.rfind("one-g", 0) == 0) {
    Variant r{v, 128, false, true, Fusion::Auto};
    r.one = ge::ModelOptions::OneDispatch::On;
    if (v.rfind("one-g", 0) == 0) r.groups = std::atoi(v.c_str() + 5);
    if (v.rfind("one-g", 0) != 0 || r.groups > 0) return r;
  }
  if (v.rfind("wg", 0) == 0) {
    const int size = std::atoi(v.c_str() + 2);
    if (size >= 32 && size <= 1024 && size % 32 == 0) return {v, size, false, true, Fusion::Auto};
  }
  throw ArgumentError(
      fmt::format("earth bench: variant '{}' is not default, preload, direct, "
                  "fused, unfused, unfused-direct, one, one-g<groups> or wg<32..1024>",
                  v));
}

struct BenchRow {
  int level = 0, ranks = 1, rank = 0, halo_steps = 1;
  std::string variant;
  std::size_t cells = 0, local_cells = 0;  // the grid's; the ones this rank holds
  double dt = 0, steps_per_s = 0, days_per_s = 0, gpu_ms_per_step = -1, wall_ms_per_step = 0;
  double kernel_ms_per_step = -1, bytes_per_step = 0, tendency_ms = -1, update_ms = -1;
  double host_ms_per_step = 0;  // the host's time to issue a step's commands
  int dispatches = 0;
};

// Times `model`: a warm-up, then enough steps for min_seconds under a Profiler scope (GPU
// timestamps and fenced wall clock), then three steps with every dispatch timed alone.
void time_steps(const Context& ctx, ge::Model& model, double min_seconds, BenchRow& r) {
  model.step(3);  // warm-up: compiles, first-touch
  ctx.finish();
  auto t0 = std::chrono::steady_clock::now();
  model.step(1);
  ctx.finish();
  const double one = std::max(seconds_since(t0), 1e-6);
  const auto steps = static_cast<long long>(std::clamp(min_seconds / one, 5.0, 20000.0));
  Profiler prof(ctx);
  {
    auto scope = prof.scope("steps");
    const auto issued = std::chrono::steady_clock::now();
    model.step(steps);
    r.host_ms_per_step = seconds_since(issued) * 1e3 / static_cast<double>(steps);
  }
  const auto s = prof.stats("steps");
  r.wall_ms_per_step = s.wall_total_ms / static_cast<double>(steps);
  r.steps_per_s = 1000.0 / r.wall_ms_per_step;
  r.days_per_s = r.steps_per_s * r.dt / 86400.0;
  // llvmpipe's timer queries do not see shader work: a software device gets wall times only.
  if (ctx.info().is_software) return;
  if (s.gpu_samples > 0) r.gpu_ms_per_step = s.gpu_total_ms / static_cast<double>(steps);
  model.set_kernel_timing(true);
  model.reset_kernel_times();
  model.step(3);
  model.set_kernel_timing(false);
  const auto kt = model.kernel_times();
  if (kt.available && kt.dispatches > 0) {
    r.kernel_ms_per_step = (kt.tendency_ms + kt.update_ms + kt.diffusion_ms) / 3.0;
    r.tendency_ms = kt.tendency_ms / static_cast<double>(std::max(kt.tendency_dispatches, 1LL));
    r.update_ms = kt.update_ms / static_cast<double>(std::max(kt.update_dispatches, 1LL));
  }
}

struct BenchSetup {
  int case_number = 2;
  double diffusion_hours = 0, seconds = 2;
  int ranks = 1, rank = 0;  // one rank's share of a team of `ranks`, rehearsed alone
};

BenchRow bench_variant(const Context& ctx, const ge::Grid& grid, const BenchSetup& b,
                       ge::Team& team, const Variant& v) {
  ge::ModelOptions mo;
  mo.diffusion_time = b.diffusion_hours * 3600;
  mo.work_group_size = v.work_group_size;
  mo.preload_neighbours = v.preload;
  mo.replay_steps = v.replay;
  mo.fuse_stages = v.fuse;
  mo.one_dispatch_steps = v.one;
  mo.one_dispatch_groups = v.groups;
  ge::Model model(ctx, grid, ge::make_case(b.case_number), mo, team);
  BenchRow r;
  r.level = grid.level;
  r.variant = v.name;
  r.cells = grid.cell_count();
  r.ranks = b.ranks;
  r.rank = b.rank;
  r.local_cells = model.subdomain().size();
  r.halo_steps = model.options().halo_steps;
  r.dt = model.time_step();
  r.bytes_per_step = model.traffic().bytes;
  r.dispatches = model.traffic().dispatches;
  time_steps(ctx, model, b.seconds, r);
  return r;
}

std::string ms(double v) {
  return v >= 0 ? fmt::format("{:.4f}", v) : "n/a";
}

nlohmann::json print_row(const BenchRow& r) {
  const double ms_step = r.kernel_ms_per_step > 0 ? r.kernel_ms_per_step
                         : r.gpu_ms_per_step > 0  ? r.gpu_ms_per_step
                                                  : r.wall_ms_per_step;
  const double gb_s = r.bytes_per_step / (ms_step * 1e-3) / 1e9;
  const double gaps = (r.kernel_ms_per_step > 0 && r.gpu_ms_per_step > 0)
                          ? 1.0 - r.kernel_ms_per_step / r.gpu_ms_per_step
                          : -1;
  std::cout << fmt::format(
      "{:>5} {:>8} {:>9} {:>7.1f} {:>8.1f} {:>9.3f} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8.1f} "
      "{:>8.1f} {:>7.3f} {:>6}\n",
      r.level, r.variant, r.cells, r.dt, r.steps_per_s, r.days_per_s, ms(r.wall_ms_per_step),
      ms(r.host_ms_per_step), ms(r.gpu_ms_per_step), ms(r.kernel_ms_per_step),
      ms(r.tendency_ms) + "/" + ms(r.update_ms), r.bytes_per_step / 1e6, gb_s,
      gb_s / cuda_copy_gb_s, gaps >= 0 ? fmt::format("{:.0f}%", 100 * gaps) : std::string("n/a"));
  if (r.ranks > 1) {
    std::cout << fmt::format(
        "      rank {} of {}: {} local cells (own and halo), the halo for {} "
        "steps, never swapped\n",
        r.rank, r.ranks, r.local_cells, r.halo_steps);
  }
  return {{"level", r.level},
          {"variant", r.variant},
          {"cells", r.cells},
          {"ranks", r.ranks},
          {"rank", r.rank},
          {"local_cells", r.local_cells},
          {"halo_steps", r.halo_steps},
          {"dt_s", r.dt},
          {"steps_per_s", r.steps_per_s},
          {"days_per_s", r.days_per_s},
          {"wall_ms_per_step", r.wall_ms_per_step},
          {"host_ms_per_step", r.host_ms_per_step},
          {"gpu_ms_per_step", r.gpu_ms_per_step},
          {"kernel_ms_per_step", r.kernel_ms_per_step},
          {"tendency_ms_per_dispatch", r.tendency_ms},
          {"update_ms_per_dispatch", r.update_ms},
          {"bytes_per_step", r.bytes_per_step},
          {"dispatches_per_step", r.dispatches},
          {"gb_per_s", gb_s},
          {"fraction_of_cuda_copy", gb_s / cuda_copy_gb_s},
          {"gap_fraction", gaps}};
}

}  // namespace

void add_bench_subcommand(CLI::App& earth, std::function<int()>& chosen) {
  auto* sub =
      earth.add_subcommand("bench", "Time the model's steps per level: rate, GPU time, bandwidth");
  struct Options {
    std::vector<int> levels{4, 5, 6};
    std::vector<std::string> variants{"default"};
    BenchSetup setup;
    std::string device = "auto", json;
  };
  auto o = std::make_shared<Options>();
  sub->add_option("--levels", o->levels, "Grid levels")
      ->delimiter(',')
      ->check(CLI::Range(0, ge::max_grid_level));
  sub->add_option("--variants", o->variants,
                  "Kernel variants: default, preload, wg64, wg256, ...; direct: steps not "
                  "replayed (every dispatch run on its own); fused, unfused, unfused-direct: "
                  "fuse_stages on or off (8 dispatches a step), never in one dispatch; one, "
                  "one-g<groups>: the whole step in one dispatch (of that many work groups)")
      ->delimiter(',');
  sub->add_option("--case", o->setup.case_number, "Test case 1, 2, 5 or 6")
      ->check(CLI::IsMember({1, 2, 5, 6}));
  sub->add_option("--diffusion-hours", o->setup.diffusion_hours,
                  "Hyperdiffusion e-folding time of the 2dx wave (0: off)");
  sub->add_option("--seconds", o->setup.seconds,
                  "Wall time to spend timing each level and variant");
  sub->add_option("--ranks", o->setup.ranks,
                  "Time one rank's share of a run across this many ranks: its cells, halo "
                  "rings and dispatches, on this device alone, with no halo swapped")
      ->check(CLI::Range(1, 1 << 20));
  sub->add_option("--rank", o->setup.rank, "Which rank --ranks times (default 0)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("-d,--device", o->device, "auto, an index, or a word of the renderer");
  sub->add_option("--json", o->json, "Also write the table as JSON here");
  sub->callback([&chosen, o]() {
    chosen = [o]() {
      std::vector<Variant> variants;
      for (const auto& v : o->variants) variants.push_back(parse_variant(v));
      // One rank's share (one process's: every cell when ranks is 1); a rank outside the
      // team fails here, before the device starts.
      const auto team = ge::rehearsal(o->setup.ranks, o->setup.rank);
      Context ctx({.device = o->device});
      std::cout << "device: " << ctx.info().renderer << "\n";
      std::cout << fmt::format(
          "{:>5} {:>8} {:>9} {:>7} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>19} {:>8} {:>8} {:>7} "
          "{:>6}\n",
          "level", "variant", "cells", "dt s", "steps/s", "days/s", "wall ms", "host ms", "gpu ms",
          "kern ms", "tend/update ms", "MB/step", "GB/s", "x copy", "gaps");
      nlohmann::json rows = nlohmann::json::array();
      for (int level : o->levels) {
        const ge::Grid grid = ge::cached_grid(grid_options(level, "spring", true), &ctx).grid;
        for (const auto& v : variants) {
          rows.push_back(print_row(bench_variant(ctx, grid, o->setup, *team, v)));
        }
      }
      std::cout << "Per step: wall = fenced wall clock of a chain of steps; host = the host's "
                   "time to issue\n"
                   "a step's commands (wall = host: the host is the limit); gpu = GPU timestamps "
                   "around the\n"
                   "chain; kern = the dispatches timed one by one (tend/update: per dispatch). "
                   "GB/s = the\n"
                   "compulsory bytes per step (Model::traffic) over kern (else gpu, else wall); x "
                   "copy = that\n"
                   "over 2994 GB/s, the H100's CUDA device copy; gaps = 1 - kern / gpu.\n";
      if (!o->json.empty()) {
        write_json(o->json, {{"device", ctx.info().renderer},
                             {"case", o->setup.case_number},
                             {"ranks", o->setup.ranks},
                             {"rank", o->setup.rank},
                             {"rows", rows}});
      }
      return 0;
    };
  });
}

void add_compare_subcommand(CLI::App& earth, std::function<int()>& chosen) {
  auto* sub = earth.add_subcommand(
      "compare", "l2 height differences of saved coarse runs (--save) against a saved finer run");
  struct Options {
    std::string reference, json;
    std::vector<std::string> files;
  };
  auto o = std::make_shared<Options>();
  sub->add_option("--reference", o->reference, "The finer run's saved height")->required();
  sub->add_option("files", o->files, "Coarser runs' saved heights (same case and day)")->required();
  sub->add_option("--json", o->json, "Also write the table as JSON here");
  sub->callback([&chosen, o]() {
    chosen = [o]() {
      const SavedField ref = load_field(o->reference);
      const ge::Grid fine =
          ge::cached_grid(grid_options(ref.level, ref.grid_kind, ref.recentre)).grid;
      ge::Locator locator(fine);
      std::cout << fmt::format("reference: case {}, day {}, level {} ({} cells)\n", ref.case_number,
                               ref.day, ref.level, fine.cell_count());
      std::cout << fmt::format("{:>5} {:>9} {:>12} {:>8}\n", "level", "cells", "l2", "order");
      nlohmann::json rows = nlohmann::json::array();
      double previous = -1;
      for (const auto& file : o->files) {
        const SavedField f = load_field(file);
        if (f.case_number != ref.case_number || std::abs(f.day - ref.day) > 1e-6) {
          throw ArgumentError(
              fmt::format("earth compare: {} holds case {} day {}; the reference case {} day {}",
                          file, f.case_number, f.day, ref.case_number, ref.day));
        }
        const ge::Grid coarse =
            ge::cached_grid(grid_options(f.level, f.grid_kind, f.recentre)).grid;
        const auto truth = ge::interpolate(locator, ref.values, coarse.centres);
        const double l2 = ge::height_errors(coarse, f.values, truth).l2;
        const std::string order =
            previous > 0 ? fmt::format("{:.2f}", std::log2(previous / l2)) : "";
        std::cout << fmt::format("{:>5} {:>9} {:>12.4e} {:>8}\n", f.level, coarse.cell_count(), l2,
                                 order);
        rows.push_back({{"level", f.level}, {"cells", coarse.cell_count()}, {"l2", l2}});
        previous = l2;
      }
      if (!o->json.empty()) {
        write_json(o->json, {{"case", ref.case_number},
                             {"day", ref.day},
                             {"reference_level", ref.level},
                             {"rows", rows}});
      }
      return 0;
    };
  });
}

namespace {

// One rank count's partition of a grid, summed over its ranks.
struct PartitionRow {
  int ranks = 0;
  std::size_t min_cells = 0, max_cells = 0, max_halo = 0, max_sent = 0, max_links = 0;
  double mean_halo = 0, mean_links = 0, min_interior = 1;
};

PartitionRow partition_row(const ge::Grid& grid, int ranks, int depth) {
  PartitionRow row{ranks, grid.cell_count(), 0, 0, 0, 0, 0, 0, 1};
  for (int r = 0; r < ranks; ++r) {
    const ge::Subdomain d = ge::make_subdomain(grid, ranks, r, depth);
    std::size_t sent = 0;
    for (const auto& l : d.links) sent += l.send.size();
    row.min_cells = std::min(row.min_cells, d.owned);
    row.max_cells = std::max(row.max_cells, d.owned);
    row.max_halo = std::max(row.max_halo, d.halo());
    row.max_sent = std::max(row.max_sent, sent);
    row.max_links = std::max(row.max_links, d.links.size());
    row.mean_halo += static_cast<double>(d.halo()) / ranks;
    row.mean_links += static_cast<double>(d.links.size()) / ranks;
    row.min_interior = std::min(row.min_interior,
                                static_cast<double>(d.interior()) / static_cast<double>(d.owned));
  }
  return row;
}

nlohmann::json print_partition_row(const PartitionRow& r, double exchanges) {
  // A halo cell is a vec4 of float32, sent `exchanges` times a step.
  std::cout << fmt::format(
      "{:>6} {:>10} {:>10} {:>10.0f} {:>9} {:>9} {:>6.1f} {:>5} {:>9.3f} {:>10.1f}\n", r.ranks,
      r.min_cells, r.max_cells, r.mean_halo, r.max_halo, r.max_sent, r.mean_links, r.max_links,
      r.min_interior, exchanges * 16.0 * static_cast<double>(r.max_sent) / 1e3);
  return {
      {"ranks", r.ranks},           {"min_cells", r.min_cells}, {"max_cells", r.max_cells},
      {"mean_halo", r.mean_halo},   {"max_halo", r.max_halo},   {"max_sent", r.max_sent},
      {"mean_links", r.mean_links}, {"max_links", r.max_links}, {"min_interior", r.min_interior}};
}

}  // namespace

void add_partition_subcommand(CLI::App& earth, std::function<int()>& chosen) {
  auto* sub = earth.add_subcommand(
      "partition", "How the grid splits across MPI ranks: cells, halo and neighbours per rank");
  struct Options {
    int level = 5;
    std::vector<int> ranks{2, 8, 64, 512}, depths{8};
    std::string grid = "spring", json;
  };
  auto o = std::make_shared<Options>();
  sub->add_option("-l,--level", o->level, "Grid level n: 10*4^n + 2 cells")
      ->check(CLI::Range(0, ge::max_grid_level));
  sub->add_option("--ranks", o->ranks, "Rank counts, comma-separated")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  sub->add_option("--depth", o->depths,
                  "Halo rings, comma-separated: 8 N for one exchange every N steps (--halo-steps "
                  "N; 64 = every 8 steps, the default on GPUs), 2 for one a stage")
      ->delimiter(',')
      ->check(CLI::Range(1, 64));
  sub->add_option("--grid", o->grid, "spring (default) or bisection (same cells, faster build)");
  sub->add_option("--json", o->json, "Also write the tables as JSON here");
  sub->callback([&chosen, o]() {
    chosen = [o]() {
      const ge::Grid grid = ge::cached_grid(grid_options(o->level, o->grid, true)).grid;
      nlohmann::json tables = nlohmann::json::array();
      for (int depth : o->depths) {
        // Stages use up 2 rings each: a step of 4 stages swaps a halo of up to 8 rings
        // ceil(8 / depth) times; 8 N rings last N steps.
        const double exchanges =
            depth <= 8 ? static_cast<double>((8 + depth - 1) / depth) : 1.0 / (depth / 8);
        std::cout << fmt::format(
            "grid: level {}, {} cells ({}); halo of {} rings, {}\n", o->level, grid.cell_count(),
            o->grid, depth,
            depth <= 8 ? fmt::format("{} exchange{} a step", exchanges, exchanges > 1 ? "s" : "")
                       : fmt::format("one exchange every {} steps", depth / 8));
        std::cout << fmt::format(
            "{:>6} {:>10} {:>10} {:>10} {:>9} {:>9} {:>6} {:>5} {:>9} {:>10}\n", "ranks",
            "min cells", "max cells", "mean halo", "max halo", "max sent", "links", "max",
            "interior", "KB/step");
        nlohmann::json rows = nlohmann::json::array();
        for (int ranks : o->ranks) {
          if (static_cast<std::size_t>(ranks) > grid.cell_count()) continue;
          rows.push_back(print_partition_row(partition_row(grid, ranks, depth), exchanges));
        }
        tables.push_back({{"depth", depth}, {"exchanges_per_step", exchanges}, {"rows", rows}});
      }
      std::cout << "halo = the ring cells a rank receives each exchange; sent = cells it sends;\n"
                   "links = neighbouring ranks; interior = the smallest share of own cells that "
                   "need no halo;\nKB/step = the largest rank's bytes sent per step (16 bytes a "
                   "cell).\n";
      if (!o->json.empty()) {
        write_json(o->json,
                   {{"level", o->level}, {"cells", grid.cell_count()}, {"tables", tables}});
      }
      return 0;
    };
  });
}

}  // namespace gpgpu::cli::earth
