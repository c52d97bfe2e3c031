// build_grid: the icosahedron refined level by level, each level relaxed by spring
// dynamics (springs.hpp), put in Morton order, and turned into cells with ordered
// neighbours, dual triangles and control volumes (geometry.hpp). Each stage is timed.
#include <algorithm>

#include <fmt/format.h>

#include "earth/grid/geometry.hpp"
#include "earth/grid/morton.hpp"
#include "earth/grid/parallel.hpp"
#include "earth/grid/springs.hpp"
#include "gpgpu/earth/grid.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::earth {

namespace {

void validate(const GridOptions& o) {
  if (o.level < 0 || o.level > max_grid_level) {
    throw ArgumentError(
        fmt::format("earth grid: level must be 0..{}; got {}", max_grid_level, o.level));
  }
  if (!(o.spring_beta > 0) || !(o.spring_beta < 2)) {
    throw ArgumentError(
        fmt::format("earth grid: spring_beta must be in (0, 2); got {}", o.spring_beta));
  }
  if (!(o.spring_tolerance > 0)) {
    throw ArgumentError(
        fmt::format("earth grid: spring_tolerance must be positive; got {}", o.spring_tolerance));
  }
  if (o.spring_max_sweeps < 0) {
    throw ArgumentError(
        fmt::format("earth grid: spring_max_sweeps must be >= 0; got {}", o.spring_max_sweeps));
  }
}

// Adds the time since the last call to the stage `name` (kept in first-seen order).
class StageClock {
 public:
  explicit StageClock(GridBuildReport& report)
      : report_(report), start_(detail::seconds_now()), last_(start_) {}
  void operator()(const std::string& name) {
    const double now = detail::seconds_now();
    auto it = std::find_if(report_.stages.begin(), report_.stages.end(),
                           [&](const GridBuildStage& s) { return s.name == name; });
    if (it == report_.stages.end()) it = report_.stages.insert(it, {name, 0.0});
    it->seconds += now - last_;
    last_ = now;
  }
  double total() const { return detail::seconds_now() - start_; }

 private:
  GridBuildReport& report_;
  double start_, last_;
};

detail::Mesh make_mesh(const GridOptions& o, const Context* gpu, GridBuildReport& report,
                       StageClock& clock) {
  detail::Mesh mesh = detail::icosahedron();
  detail::SpringDriver springs(o.device, gpu);
  for (int l = 1; l <= o.level; ++l) {
    mesh = detail::subdivide(mesh);
    clock("subdivide");
    if (o.optimization != GridOptimization::Spring) continue;
    const detail::Rings rings = detail::rings(mesh.points.size(), mesh.faces);
    clock("neighbours");
    report.levels.push_back(springs.relax(mesh.points, rings, l, o));
    clock("springs");
  }
  report.gpu = springs.gpu_name();
  report.note = springs.note();
  if (o.reorder) detail::reorder_by_morton(mesh);
  clock("morton order");
  return mesh;
}

}  // namespace

GridBuild build_grid_reported(const GridOptions& options, const Context* gpu) {
  validate(options);
  GridBuild b;
  b.report.threads = detail::worker_count();
  StageClock clock(b.report);
  detail::Mesh mesh = make_mesh(options, gpu, b.report, clock);
  Grid& g = b.grid;
  g.level = options.level;
  g.options = options;
  g.centres = std::move(mesh.points);
  g.triangles = std::move(mesh.faces);
  detail::assign_rings(g);
  clock("rings");
  detail::build_geometry(g);
  clock("control volumes");
  if (options.recentre) {
    detail::recentre(g);
    clock("recentre");
  }
  b.report.seconds = clock.total();
  return b;
}

Grid build_grid(const GridOptions& options, const Context* gpu) {
  return build_grid_reported(options, gpu).grid;
}

}  // namespace gpgpu::earth
