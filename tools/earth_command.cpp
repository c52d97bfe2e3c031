// `gpgpu earth`: runs a Williamson et al. (1992) shallow-water test case on the GPU, prints
// the error norms and conservation, and writes the pictures; `earth grid` and `earth bench`
// are in earth_tools.cpp. The same code runs in one process (`gpgpu`) or on every MPI rank
// (`gpgpu-mpi`, tools/mpi_main.cpp): the Team it is given tells which; rank 0 prints and
// writes files, every rank takes part in the collective steps (fields, sums).
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <optional>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "commands.hpp"
#include "earth_command.hpp"
#include "earth_grid_source.hpp"
#include "earth_netcdf.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/earth.hpp"
#include "gpgpu/earth/grid_cache.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::cli {

namespace ge = gpgpu::earth;
using namespace gpgpu::cli::earth;

namespace {

constexpr double day_s = 86400.0;

struct RunOptions {
  int case_number = 2, level = 5, frames = 0, map_width = 1024, halo_steps = 0;
  std::optional<double> days, compare_day;  // unset: the case's length / its default day
  double alpha = 0, courant = 1.6, diffusion_hours = 0, correction = 0.125;
  std::string out, device = "auto", grid = "spring", reference, json, halo = "step";
  std::string overlap = "auto", fuse = "auto", one_dispatch = "auto";
  TimelineRequest timeline;
  bool no_recentre = false, no_pictures = false, save = false, force_courant = false;
  GridSource grid_source;  // --grid-device, --grid-file, --verbose
  NetcdfRequest netcdf;    // --netcdf, --netcdf-every, --initial, --initial-record
  // Filled in by check_options:
  double run_days = 0, at_day = -1;  // the run's length; the day of --save/--reference (-1: none)
  double time_offset = 0;            // s: the time of the --initial record the run starts from
};

// What one run produced, for the table and the JSON.
struct RunResult {
  double build_s = 0, wall_s = 0, days = 0, dt = 0;
  std::string grid_how;  // built where, or read from where
  long long steps = 0;
  ge::GlobalSums start, end, gpu_start, gpu_end;
  std::optional<ge::ErrorNorms> errors;
  std::optional<std::vector<double>> compare_height;  // the height at compare_day
  std::optional<double> reference_l2;
  std::uint64_t state_hash = 0;         // FNV-1a of the final fields' bits
  std::vector<std::string> rank_lines;  // per rank: device and cells (MPI runs)
  std::vector<std::string> files;
  std::string video_note;
};

class Progress {
 public:
  explicit Progress(double days)
      : days_(days), tty_(isatty(2) != 0), t0_(std::chrono::steady_clock::now()) {}
  void operator()(double day) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    const int tenth = static_cast<int>(10 * day / days_);
    if (!tty_ && tenth == last_tenth_) return;
    last_tenth_ = tenth;
    std::cerr << fmt::format("{}  day {:.2f} / {:.2f} ({:.0f}%), {:.1f} s{}", tty_ ? "\r" : "", day,
                             days_, 100 * day / days_, s, tty_ ? "   " : "\n");
  }
  void done() const {
    if (tty_) std::cerr << "\n";
  }

 private:
  double days_;
  bool tty_;
  int last_tenth_ = -1;
  std::chrono::steady_clock::time_point t0_;
};

ge::FieldStyle frame_style(const ge::CaseSetup& setup, const std::vector<double>& h0) {
  auto style = ge::style_for(h0, "", "M", ge::Palette::Height);
  if (setup.number == 1) style.min = 0, style.max = 1000;
  const double pad = 0.05 * (style.max - style.min);
  if (setup.number != 1) style.min -= pad, style.max += pad;
  return style;
}

// The map and globe renderers: on rank 0 only, which draws every picture.
struct Drawing {
  std::optional<ge::MapProjector> map;
  std::optional<ge::GlobeRenderer> globe;
  ge::FieldStyle frame_style;
  bool on() const { return map.has_value(); }
};

void start_drawing(const RunOptions& o, const Context& ctx, const ge::Grid& grid,
                   const ge::FieldStyle& style, Drawing& d) {
  d.map.emplace(grid, o.map_width, o.map_width / 2);
  d.globe.emplace(ctx, o.map_width / 2);
  d.frame_style = style;
}

// Every rank takes part in gathering the height; rank 0 draws and writes the frame.
void write_frame(const RunOptions& o, Drawing& d, const ge::Model& model, int index) {
  const auto f = model.fields();
  if (!d.on()) return;
  auto s = d.frame_style;
  s.title = fmt::format("HEIGHT, DAY {:.2f}", model.time() / day_s);
  const double lon = -90.0 + 360.0 * index / std::max(1, o.frames);
  const auto image = ge::render_frame(*d.globe, *d.map, f.height, s, 25.0, lon,
                                      fmt::format("{} LEVEL {}", model.setup().title(), o.level));
  ge::write_png(std::filesystem::path(o.out) / "frames" / fmt::format("frame_{:04d}.png", index),
                image);
}

// Runs to o.run_days, stopping at each frame time, the comparison day and the NetCDF records.
void integrate(const RunOptions& o, ge::Model& model, RunResult& r, Drawing& d, bool root,
               NetcdfOutput* netcdf) {
  std::vector<double> stops;
  for (int f = 1; f <= o.frames; ++f) stops.push_back(o.run_days * f / o.frames);
  if (o.at_day > 0 && o.at_day < o.run_days) stops.push_back(o.at_day);
  if (netcdf) {
    for (const double day : netcdf->stops(o.run_days)) stops.push_back(day);
  }
  stops.push_back(o.run_days);
  std::sort(stops.begin(), stops.end());
  stops.erase(std::unique(stops.begin(), stops.end(),
                          [](double a, double b) { return std::abs(a - b) < 1e-9; }),
              stops.end());
  Progress progress(o.run_days);
  int frame = 1;
  for (const double stop : stops) {
    const double from = model.time() / day_s;
    const auto t0 = std::chrono::steady_clock::now();
    model.run((stop - from) * day_s, [&](double f) {
      if (root) progress(from + f * (stop - from));
    });
    r.wall_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.steps += ge::steps_for((stop - from) * day_s, model.max_time_step());
    r.dt = model.time_step();
    if (o.at_day > 0 && std::abs(stop - o.at_day) < 1e-9) r.compare_height = model.fields().height;
    if (o.frames > 0 && frame <= o.frames && std::abs(stop - o.run_days * frame / o.frames) < 1e-9)
      write_frame(o, d, model, frame++);
    if (netcdf) netcdf->at(stop, model);
  }
  if (root) progress.done();
}

// Gathers the fields and vorticity (every rank); rank 0 draws the maps and the globe.
void write_pictures(const RunOptions& o, const ge::Model& model, Drawing& d, RunResult& r) {
  const auto f = model.fields();
  const auto zeta = model.vorticity();
  if (!d.on()) return;
  const ge::Grid& g = model.grid();
  const std::filesystem::path dir(o.out);
  const std::string day = fmt::format("DAY {:.2f}", model.time() / day_s);
  std::vector<double> speed(g.cell_count());
  for (std::size_t i = 0; i < speed.size(); ++i) speed[i] = ge::norm(f.velocity[i]);
  auto save = [&](const std::string& name, const std::vector<double>& v, const std::string& title,
                  const std::string& units, ge::Palette p) {
    ge::write_map_png(dir / name, *d.map, v, ge::style_for(v, title + ", " + day, units, p));
    r.files.push_back((dir / name).string());
  };
  save("height.png", f.height, "HEIGHT h", "M", ge::Palette::Height);
  save("speed.png", speed, "SPEED |U|", "M/S", ge::Palette::Speed);
  save("vorticity.png", zeta, "RELATIVE VORTICITY", "1/S", ge::Palette::Diverging);
  if (ge::has_analytic_solution(model.setup())) {
    const auto exact = ge::analytic_height(g, model.setup(), o.time_offset + model.time());
    std::vector<double> error(g.cell_count());
    for (std::size_t i = 0; i < error.size(); ++i) error[i] = f.height[i] - exact[i];
    save("height_error.png", error, "HEIGHT - EXACT", "M", ge::Palette::Diverging);
  }
  ge::write_globe_png(dir / "globe.png", *d.globe, *d.map, f.height,
                      ge::style_for(f.height, "HEIGHT, " + day, "M", ge::Palette::Height), 25, -60);
  r.files.push_back((dir / "globe.png").string());
}

// l2 of the height at the comparison day against a finer run's saved field, interpolated.
double reference_difference(const SavedField& ref, const ge::Grid& grid,
                            const std::vector<double>& h) {
  std::cerr << fmt::format("building the level-{} reference grid...\n", ref.level);
  const ge::Grid fine = ge::cached_grid(grid_options(ref.level, ref.grid_kind, ref.recentre)).grid;
  ge::Locator locator(fine);
  const auto truth = ge::interpolate(locator, ref.values, grid.centres);
  return ge::height_errors(grid, h, truth).l2;
}

// The reference file, read before the run so that a wrong path or case fails at once.
SavedField load_reference(const RunOptions& o) {
  SavedField ref = load_field(o.reference);
  if (ref.case_number != o.case_number || std::abs(ref.day - o.at_day) > 1e-6) {
    throw ArgumentError(
        fmt::format("earth: reference {} holds case {} day {}; this run compares case {} day {}",
                    o.reference, ref.case_number, ref.day, o.case_number, o.at_day));
  }
  return ref;
}

// A relative change, or why there is none: potential enstrophy divides by the depth, which
// is zero outside case 1's bell (that case advects a tracer on no background depth).
std::string relative_change(double change) {
  return std::isfinite(change) ? fmt::format("{:+.3e}", change) : "n/a (the depth is 0 in places)";
}

// FNV-1a over the bits of the final fields: equal hashes on 1 and N ranks mean equal bits.
std::uint64_t fields_hash(const ge::Fields& f) {
  std::uint64_t h = 1469598103934665603ULL;
  auto add = [&h](double v) {
    const auto bits = std::bit_cast<std::uint64_t>(v);
    for (int b = 0; b < 64; b += 8) h = (h ^ ((bits >> b) & 0xff)) * 1099511628211ULL;
  };
  for (std::size_t i = 0; i < f.height.size(); ++i) {
    add(f.height[i]);
    add(f.velocity[i].x), add(f.velocity[i].y), add(f.velocity[i].z);
  }
  return h;
}

void print_report(const RunOptions& o, const Context& ctx, const ge::Model& model,
                  const RunResult& r) {
  const auto& g = model.grid();
  const auto s = ge::statistics(g);
  std::cout << fmt::format("gpgpu earth: {}\n", model.setup().title());
  std::cout << fmt::format("device: {}\n", ctx.info().renderer);
  for (const auto& line : r.rank_lines) std::cout << line << "\n";
  std::cout << fmt::format(
      "grid: level {}, {} cells, spacing {:.1f} / {:.1f} / {:.1f} km (min / mean / max), area "
      "ratio {:.3f}; "
      "{}{} ({})\n",
      g.level, g.cell_count(), s.min_spacing * 6371.22, s.mean_spacing * 6371.22,
      s.max_spacing * 6371.22, s.area_ratio, o.grid, o.no_recentre ? "" : " + recentred",
      r.grid_how);
  std::cout << fmt::format(
      "model: dt {:.1f} s (courant {}), {} steps, continuity correction {}, hyperdiffusion {}\n",
      r.dt, o.courant, r.steps, o.correction,
      o.diffusion_hours > 0 ? fmt::format("{} h", o.diffusion_hours) : "off");
  std::cout << fmt::format(
      "time: {:.3f} days in {:.2f} s of stepping: {:.3f} simulated days per wall second\n", r.days,
      r.wall_s, r.days / r.wall_s);
  if (r.errors) {
    std::cout << fmt::format(
        "height error at day {:.2f} (normalised): l1 {:.4e}  l2 {:.4e}  linf {:.4e}\n", r.days,
        r.errors->l1, r.errors->l2, r.errors->linf);
  }
  const auto d = ge::drift(r.start, r.end);
  const auto dg = ge::drift(r.gpu_start, r.gpu_end);
  std::cout << fmt::format(
      "conservation, relative change over the run (float64 sums of the float32 fields):\n"
      "  mass {}  energy {}  potential enstrophy {}\n",
      relative_change(d.mass), relative_change(d.energy), relative_change(d.potential_enstrophy));
  std::cout << fmt::format("  (GPU reduction: mass {}  energy {}  potential enstrophy {})\n",
                           relative_change(dg.mass), relative_change(dg.energy),
                           relative_change(dg.potential_enstrophy));
  if (r.reference_l2) {
    std::cout << fmt::format("l2 height difference at day {} against the reference {}: {:.4e}\n",
                             o.at_day, o.reference, *r.reference_l2);
  }
  std::cout << fmt::format("final fields: FNV-1a {:016x}\n", r.state_hash);
  for (const auto& f : r.files) std::cout << "wrote " << f << "\n";
  if (!r.video_note.empty()) std::cout << r.video_note << "\n";
}

nlohmann::json to_json(const RunOptions& o, const Context& ctx, const ge::Model& model,
                       const RunResult& r) {
  const auto d = ge::drift(r.start, r.end);
  nlohmann::json j{{"case", o.case_number},
                   {"alpha", o.alpha},
                   {"level", o.level},
                   {"cells", model.grid().cell_count()},
                   {"ranks", model.team().size()},
                   {"halo_rings", model.subdomain().depth},
                   {"days", r.days},
                   {"dt_s", r.dt},
                   {"steps", r.steps},
                   {"wall_s", r.wall_s},
                   {"steps_per_wall_s", static_cast<double>(r.steps) / r.wall_s},
                   {"days_per_wall_s", r.days / r.wall_s},
                   {"grid_s", r.build_s},
                   {"grid_how", r.grid_how},
                   {"device", ctx.info().renderer},
                   {"grid", o.grid},
                   {"recentre", !o.no_recentre},
                   {"courant", o.courant},
                   {"continuity_correction", o.correction},
                   {"diffusion_hours", o.diffusion_hours},
                   {"mass_drift", d.mass},
                   {"energy_drift", d.energy},
                   {"enstrophy_drift", d.potential_enstrophy},
                   {"fields_fnv1a", fmt::format("{:016x}", r.state_hash)}};
  if (r.errors)
    j["errors"] = {{"l1", r.errors->l1}, {"l2", r.errors->l2}, {"linf", r.errors->linf}};
  if (r.reference_l2) j["reference_l2"] = *r.reference_l2, j["compare_day"] = o.at_day;
  return j;
}

// Refuses option values outside their documented ranges, before anything runs; fills in
// the run length and the comparison day.
void check_options(RunOptions& o, bool root) {
  const double case_days = ge::make_case(o.case_number, o.alpha).days;
  if (o.days && !(std::isfinite(*o.days) && *o.days > 0))
    throw ArgumentError(
        fmt::format("earth: --days must be a positive number of days; got {}", *o.days));
  o.run_days = o.days.value_or(case_days);
  if (!(std::isfinite(o.courant) && o.courant > 0))
    throw ArgumentError(
        fmt::format("earth: --courant must be a positive number; got {}", o.courant));
  if (o.courant > ge::max_stable_courant) {
    const std::string why = fmt::format(
        "--courant {} is past {}, where the Runge-Kutta time step stops being stable "
        "(docs/earth.md, Time step)",
        o.courant, ge::max_stable_courant);
    if (!o.force_courant)
      throw ArgumentError("earth: " + why + "; add --force-courant to run it anyway");
    if (root)
      std::cerr << "gpgpu earth: warning: " << why << "; the run stops if the state blows up\n";
  }
  if (!(o.correction >= 0 && o.correction < 1))
    throw ArgumentError(fmt::format("earth: --correction must be in [0, 1); got {}", o.correction));
  if (!(std::isfinite(o.diffusion_hours) && o.diffusion_hours >= 0)) {
    throw ArgumentError(
        fmt::format("earth: --diffusion-hours must be >= 0 (0: off); got {}", o.diffusion_hours));
  }
  check_timeline_request(o.timeline, "earth");
  check_netcdf_request(o.netcdf);
  if (o.halo != "step" && o.halo != "stage")
    throw ArgumentError(fmt::format("earth: --halo must be step or stage; got '{}'", o.halo));
  const bool compares = o.save || !o.reference.empty();
  if (o.compare_day && !compares)
    throw ArgumentError("earth: --compare-day needs --save or --reference");
  if (o.compare_day && !(*o.compare_day > 0 && *o.compare_day <= o.run_days)) {
    throw ArgumentError(
        fmt::format("earth: --compare-day must be in (0, {}], the run's days; got {}", o.run_days,
                    *o.compare_day));
  }
  if (compares)
    o.at_day = o.compare_day.value_or(o.case_number == 6 ? std::min(10.0, o.run_days) : o.run_days);
  if (o.out.empty()) o.out = fmt::format("earth-case{}-level{}", o.case_number, o.level);
}

// One line per rank: its device and its share of the grid (for runs on several ranks).
std::vector<std::string> describe_ranks(ge::Team& team, const Context& ctx, const ge::Model& m) {
  const auto& d = m.subdomain();
  const auto lines = team.gather_text(
      fmt::format("rank {} of {}: device {} ({}), cells {}..{} ({} own, {} halo in {} rings, {} "
                  "neighbours)",
                  team.rank(), team.size(), ctx.info().device_index, ctx.info().renderer, d.first,
                  d.last - 1, d.owned, d.halo(), d.depth, d.links.size()));
  return team.size() > 1 ? lines : std::vector<std::string>{};
}

void save_height(const RunOptions& o, RunResult& r) {
  const auto path = std::filesystem::path(o.out) / fmt::format("height_case{}_level{}_day{}.bin",
                                                               o.case_number, o.level, o.at_day);
  save_field(path, {o.level, o.grid, !o.no_recentre, o.case_number, o.at_day, *r.compare_height});
  r.files.push_back(path.string());
}

void encode_video(const RunOptions& o, RunResult& r) {
  const auto mp4 = std::filesystem::path(o.out) / "earth.mp4";
  std::string why;
  if (ge::encode_mp4(std::filesystem::path(o.out) / "frames", "frame_%04d.png", mp4, 10, why)) {
    r.files.push_back(mp4.string());
  } else {
    r.video_note = "no MP4: " + why;
  }
}

// The results at the end of the run: sums (every rank), errors and files (rank 0).
void finish_run(const RunOptions& o, const ge::Model& model, RunResult& r,
                const std::optional<SavedField>& reference) {
  const auto& grid = model.grid();
  const auto& setup = model.setup();
  r.days = model.time() / day_s;
  const auto f = model.fields();
  r.gpu_end = model.sums();
  if (f.height.empty()) return;  // not rank 0
  r.end = ge::host_sums(grid, setup, f);
  r.state_hash = fields_hash(f);
  if (ge::has_analytic_solution(setup))
    r.errors = ge::height_errors(grid, f.height,
                                 ge::analytic_height(grid, setup, o.time_offset + model.time()));
  if (reference) r.reference_l2 = reference_difference(*reference, grid, *r.compare_height);
  if (o.save) save_height(o, r);
}

// The NetCDF file's `history`: when and with which case, grid and length it was made.
std::string history_line(const RunOptions& o) {
  const auto now =
      std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
  return fmt::format(
      "{:%Y-%m-%dT%H:%M:%SZ}: gpgpu earth --case {} --alpha {} --level {} --grid {}{} "
      "--days {} --courant {}{}",
      now, o.case_number, o.alpha, o.level, o.grid, o.no_recentre ? " --no-recentre" : "",
      o.run_days, o.courant, o.netcdf.initial.empty() ? "" : " --initial " + o.netcdf.initial);
}

int run_case(RunOptions o, ge::Team& team) {
  const bool root = team.rank() == 0;
  std::string error;
  try {
    check_options(o, root);
  } catch (const Error& e) {
    error = e.what();
  }
  // Every rank parsed the same options: they agree, and stop together with one message.
  error = team.first_message(error);
  if (!error.empty()) throw ge::TeamError(error);
  const bool pictures = !o.no_pictures;
  std::optional<SavedField> reference;
  if (root && !o.reference.empty()) reference = load_reference(o);
  if (root && (pictures || o.save))
    std::filesystem::create_directories(std::filesystem::path(o.out) / "frames");
  RunResult r;
  auto t0 = std::chrono::steady_clock::now();
  Context ctx({.device = team.device(o.device)});
  // Rank 0 reads the grid from the cache (or builds and keeps it) and shares it.
  const ge::Grid grid = team.share_grid([&] {
    ge::GridBuild built =
        obtain_grid(o.grid_source, grid_options(o.level, o.grid, !o.no_recentre), &ctx);
    r.grid_how = built.report.summary();
    return std::move(built.grid);
  });
  r.build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto setup = ge::make_case(o.case_number, o.alpha);
  ge::ModelOptions mo{o.courant, o.correction, o.diffusion_hours * 3600, 0};
  mo.halo_per_step = o.halo == "step";
  mo.halo_steps = o.halo_steps;
  using Overlap = ge::ModelOptions::SwapOverlap;
  mo.overlap_swaps = o.overlap == "on"    ? Overlap::On
                     : o.overlap == "off" ? Overlap::Off
                                          : Overlap::Auto;
  using Fusion = ge::ModelOptions::StageFusion;
  mo.fuse_stages = o.fuse == "on" ? Fusion::On : o.fuse == "off" ? Fusion::Off : Fusion::Auto;
  using One = ge::ModelOptions::OneDispatch;
  mo.one_dispatch_steps = o.one_dispatch == "on"    ? One::On
                          : o.one_dispatch == "off" ? One::Off
                                                    : One::Auto;
  ge::Model model(ctx, grid, setup, mo, team);
  o.time_offset = start_from_netcdf(o.netcdf, model);  // --initial: the file's fields
  r.rank_lines = describe_ranks(team, ctx, model);
  const auto f0 = model.fields();
  r.gpu_start = model.sums();
  Drawing drawing;
  if (root) {
    r.start = ge::host_sums(grid, setup, f0);
    if (pictures) start_drawing(o, ctx, grid, frame_style(setup, f0.height), drawing);
  }
  if (pictures && o.frames > 0) write_frame(o, drawing, model, 0);
  o.netcdf.command_line = history_line(o);
  const auto netcdf = start_netcdf(o.netcdf, model, team, o.time_offset);
  const auto timeline = earth::start_timeline(o.timeline, ctx, model);
  integrate(o, model, r, drawing, root, netcdf.get());
  if (timeline) earth::finish_timeline(o.timeline, team, model, *timeline);
  finish_run(o, model, r, reference);
  if (pictures) write_pictures(o, model, drawing, r);
  // After the last collective step: a failure here stops rank 0 alone, and no rank waits.
  if (netcdf) {
    if (const auto file = netcdf->finish(); !file.empty()) r.files.push_back(file);
  }
  if (!root) return 0;
  if (pictures && o.frames > 0) encode_video(o, r);
  print_report(o, ctx, model, r);
  if (!o.json.empty()) write_json(o.json, to_json(o, ctx, model, r));
  return 0;
}

}  // namespace

Command add_earth_command(CLI::App& app) {
  return add_earth_command(app, [] { return ge::one_process(); });
}

Command add_earth_command(CLI::App& app, TeamMaker make_team) {
  auto* sub = app.add_subcommand(
      "earth",
      "Shallow-water model on an icosahedral grid: Williamson et al. (1992) test cases 1, 2, 5, 6");
  sub->require_subcommand(0, 1);
  auto o = std::make_shared<RunOptions>();
  sub->add_option(
         "--case", o->case_number,
         "Test case: 1 (cosine bell), 2 (geostrophic flow), 5 (mountain), 6 (Rossby-Haurwitz)")
      ->check(CLI::IsMember({1, 2, 5, 6}));
  sub->add_option("-l,--level", o->level, "Grid level n: 10*4^n + 2 cells")
      ->check(CLI::Range(0, ge::max_grid_level));
  sub->add_option("--days", o->days, "Days to simulate, > 0 (default: the paper's 12, 5, 15, 14)");
  sub->add_option(
      "--alpha", o->alpha,
      "Cases 1 and 2: tilt of the flow from the pole, radians (e.g. 1.5208 = pi/2 - 0.05)");
  sub->add_option("--out", o->out,
                  "Folder for pictures, frames and saved fields (default earth-case<N>-level<L>)");
  sub->add_option("--frames", o->frames,
                  "Animation frames (PNG, plus an MP4 when ffmpeg is installed)")
      ->check(CLI::Range(0, 100000));
  sub->add_option("-d,--device", o->device,
                  "auto, an index, or a word of the renderer (nvidia, llvmpipe)");
  sub->add_option("--courant", o->courant,
                  fmt::format("Courant number of the time step, in (0, {}] (stable range)",
                              ge::max_stable_courant));
  sub->add_flag("--force-courant", o->force_courant,
                "Run a --courant past the stable range anyway (with a warning)");
  sub->add_option("--diffusion-hours", o->diffusion_hours,
                  "Hyperdiffusion: e-folding time of the 2dx wave in hours (0: off)");
  sub->add_option("--correction", o->correction,
                  "Fourth-order continuity correction coefficient in [0, 1) (0: second order)");
  sub->add_option("--grid", o->grid, "spring (default) or bisection");
  sub->add_flag("--no-recentre", o->no_recentre,
                "Do not move points to their control volumes' centroids");
  sub->add_flag("--save", o->save, "Save the height at --compare-day for use as --reference");
  sub->add_option("--reference", o->reference,
                  "A finer run's saved height: print the l2 difference at --compare-day");
  sub->add_option("--compare-day", o->compare_day,
                  "Day of --save/--reference (default: day 10 for case 6, else the end)");
  sub->add_flag("--no-pictures", o->no_pictures, "Write no pictures");
  sub->add_option("--map-width", o->map_width, "Map width in pixels")->check(CLI::Range(64, 8192));
  sub->add_option("--json", o->json, "Also write the results as JSON here");
  add_grid_source_options(*sub, o->grid_source);
  add_netcdf_options(*sub, o->netcdf);
  sub->add_option("--halo", o->halo,
                  "Across MPI ranks: swap the halo once a step (step, 8 rings) or before every "
                  "stage (stage, 2 rings)");
  sub->add_option("--halo-steps", o->halo_steps,
                  "Across MPI ranks, with --halo step: swap once every N steps (1..16), a halo N "
                  "times as deep computed redundantly (fewer, larger exchanges; the same bits); "
                  "0: chosen (8, 4 or 2 on GPUs where the halo stays within half a rank's cells, "
                  "else 1)")
      ->capture_default_str();
  sub->add_option("--overlap-swaps", o->overlap,
                  "Across MPI ranks, with --halo step: compute the inner cells' step while the "
                  "halo travels (on), not (off), or on GPUs only (auto); the same bits")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  sub->add_option(
         "--fuse-stages", o->fuse,
         "Apply each Runge-Kutta stage's update inside the next stage's tendency "
         "kernel (5 dispatches a step instead of 8): on, off, or on GPUs for grids of up to "
         "16,384 cells, levels 0-5 (auto); results agree to float32 rounding")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  sub->add_option("--one-dispatch", o->one_dispatch,
                  "One process: a whole step in one dispatch whose work groups wait for each "
                  "other between the stages: on, off, or on GPUs for grids of up to 163,842 "
                  "cells, levels 0-7, where the device runs them together (auto); results "
                  "agree to float32 rounding")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  add_timeline_options(*sub, o->timeline);
  auto chosen = std::make_shared<std::function<int()>>();
  add_grid_subcommand(*sub, *chosen);
  add_bench_subcommand(*sub, *chosen);
  add_compare_subcommand(*sub, *chosen);
  add_partition_subcommand(*sub, *chosen);
  return [o, chosen, make_team]() {
    if (*chosen) return (*chosen)();
    const auto team = make_team();
    return run_case(*o, *team);
  };
}

}  // namespace gpgpu::cli
