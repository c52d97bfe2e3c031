// gpgpu/earth/grid.hpp — the icosahedral geodesic grid: cells, neighbours, control volumes.
//
//   gpgpu::earth::GridOptions options;                   // level 5, spring dynamics, centroids
//   options.level = 5;
//   gpgpu::earth::Grid grid = gpgpu::earth::build_grid(options);
//   grid.cell_count();                                   // 10 * 4^5 + 2 = 10242
//   gpgpu::earth::GridStatistics s = gpgpu::earth::statistics(grid);
//   std::cout << s.to_string();                          // spacing, area ratio, checks
//
// The grid at level n refines each of the icosahedron's 20 faces n times into four: its
// 10 * 4^n + 2 points (the cell centres, unit vectors) are joined by 20 * 4^n triangles
// (the dual triangles) and 30 * 4^n edges. Twelve cells (the icosahedron's corners) have
// five neighbours, the others six. Everything here is float64; the solver copies what it
// needs to the GPU in float32. grid_cache.hpp keeps built grids on disk.
//
// How it is built (GridDevice; docs/earth.md, "The grid build"): the spring dynamics runs
// on the GPU in float32 (each level checked by float64 sweeps on the CPU), or on the CPU in
// float64; Auto times a few sweeps of a level from level 6 on, on both, and goes on with
// the faster. Everything else runs on the CPU's threads (GPGPU_EARTH_THREADS, else one a
// hardware thread), in float64. A grid built on the GPU is the CPU's to within the spring
// tolerance (measured at levels 2-5: points within 4e-7 of the spacing, statistics within
// 3e-7; tests/earth/grid_build_test.cpp bounds them by 2e-4 and 4e-4).
//
// Where the points go (GridOptimization):
//   Bisection      the recursive grid: each new point is the normalised midpoint of an edge
//                  of the level above.
//   Spring         Tomita, Satoh and Goto (2002): every edge a spring of natural length
//                  beta * (icosahedron edge / 2^n), the twelve corners fixed, relaxed to
//                  equilibrium level by level (each level starts from the relaxed level
//                  above). Smoother and more uniform than Bisection.
// Each cell's control volume (ControlVolume):
//   Centroid       corners at the centroids of the surrounding triangles (NICAM's choice,
//                  Tomita et al. 2001): interpolation to a corner is the mean of three cells.
//   Voronoi        corners at the circumcentres: the Voronoi cell of the point.
// recentre = true then moves every point to the centroid of its control volume and
// rebuilds the control volumes ("gravitational centring", Tomita et al. 2001), so that a
// cell's value sits at its volume's centre of mass, which finite volumes need for second
// order.
//
// Layout. Cells are ordered along a space-filling curve (Morton order of the points) so
// that neighbours sit close in memory. Per cell, neighbours are listed counter-clockwise
// (seen from outside) in 6 slots; a pentagon's sixth slot is -1. Slot k's dual triangle is
// (cell, neighbour k, neighbour k+1) and its control-volume corner is corners[triangle];
// edge k of the control volume runs from corner k-1 to corner k and separates the cell
// from neighbour k. Lengths and areas are on the unit sphere (multiply by a, a^2).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpgpu/earth/vec3.hpp"

namespace gpgpu {
class Context;
}

namespace gpgpu::earth {

// Where the points go (the manual above).
enum class GridOptimization { Bisection, Spring };
// Where a cell's control-volume corners go (the manual above).
enum class ControlVolume { Centroid, Voronoi };
// Where the spring dynamics runs: Auto times a sweep on each and keeps the faster.
enum class GridDevice { Auto, Cpu, Gpu };

// What grid to build, and how.
struct GridOptions {
  int level = 5;  // 0 .. 11 (level 11 has 41.9 million cells)
  GridOptimization optimization = GridOptimization::Spring;  // where the points go
  ControlVolume control_volume = ControlVolume::Centroid;    // where the corners go
  bool recentre = true;  // move each point to its control volume's centroid (the manual above)
  // Spring dynamics: natural length as a multiple of (icosahedron edge / 2^level). Tomita
  // et al. (2002) found 1.2 the most uniform stable choice; larger values buckle.
  double spring_beta = 1.2;
  // Relaxation stops when no point moves more than this fraction of the spacing in a sweep,
  // or after spring_max_sweeps sweeps per level.
  double spring_tolerance = 1e-6;
  int spring_max_sweeps = 20000;  // per level
  bool reorder = true;  // space-filling-curve order (false: the order points were made in)
  // Where the spring dynamics runs. It changes how the grid is made, not which grid (to
  // the spring tolerance), so it is not part of a cached grid's key (grid_cache.hpp).
  GridDevice device = GridDevice::Auto;
};

inline constexpr int max_grid_level = 11;  // the finest level built (41.9 million cells)
// An absent neighbour (a pentagon's sixth slot), as a size_t index.
inline constexpr std::size_t no_neighbour = static_cast<std::size_t>(-1);

// A geodesic grid on the unit sphere: cells, their neighbours, control volumes and the
// geometry the finite-volume operators need (the layout in the manual above).
class Grid {
 public:
  int level = 0;        // 10 * 4^level + 2 cells
  GridOptions options;  // what it was built with

  std::vector<Vec3> centres;                                // unit vectors, one per cell
  std::vector<std::uint8_t> degree;                         // 5 or 6
  std::vector<std::array<std::int32_t, 6>> neighbours;      // counter-clockwise; -1 past degree
  std::vector<std::array<std::int32_t, 3>> triangles;       // counter-clockwise cell triples
  std::vector<std::array<std::int32_t, 6>> cell_triangles;  // slot k: (cell, nb k, nb k+1)
  std::vector<Vec3> corners;                                // control-volume corner per triangle
  // Weights that interpolate the triangle's three cells (in triangles[] order) to its
  // corner: linear interpolation on the plane through the three points, seen from the
  // sphere's centre. Exactly 1/3 each for Centroid control volumes.
  std::vector<std::array<double, 3>> corner_weights;
  std::vector<double> areas;                        // control-volume area per cell
  std::vector<std::array<double, 6>> edge_lengths;  // arc length of edge k
  std::vector<std::array<Vec3, 6>> edge_normals;    // unit outward normal at edge k's midpoint
  std::vector<std::array<double, 6>> neighbour_distances;  // arc from the cell to neighbour k

  std::size_t cell_count() const noexcept { return centres.size(); }        // cells
  std::size_t triangle_count() const noexcept { return triangles.size(); }  // dual triangles
  std::size_t edge_count() const;  // distinct cell-cell edges: 30 * 4^level

  // @{
  // The corner at the start of edge k (corner k-1, wrapping within the cell's degree) and
  // at its end (corner k).
  const Vec3& edge_start(std::size_t cell, int k) const;
  const Vec3& edge_end(std::size_t cell, int k) const;
  // @}
  // @{
  // The midpoint of edge k on the sphere and the unit tangent there, counter-clockwise.
  Vec3 edge_midpoint(std::size_t cell, int k) const;
  Vec3 edge_tangent(std::size_t cell, int k) const;
  // @}
};

// 10 * 4^level + 2. Throws ArgumentError outside 0..max_grid_level.
std::size_t cell_count_at(int level);

// How a grid came to be: where each stage's time went and how each level's springs ran.
struct GridLevelReport {
  int level = 0;           // the level
  std::size_t points = 0;  // its points
  std::string device;      // "cpu", "gpu", or "gpu+cpu" (float32 sweeps, then float64)
  int sweeps = 0;          // in all
  int gpu_sweeps = 0;      // of them on the GPU
  bool converged = false;  // the float64 test passed (else spring_max_sweeps ran out)
  double seconds = 0;      // wall time of the level
  double cpu_sweep_ms = -1, gpu_sweep_ms = -1;  // Auto's timed sweeps (-1: not timed)
};
// One stage of a grid build and its time.
struct GridBuildStage {
  std::string name;    // "springs", "control volumes", ...
  double seconds = 0;  // summed over the levels
};
// Where a grid came from and where its build time went.
struct GridBuildReport {
  std::string source = "built";  // "built", "cache" (the disk cache) or "file"
  std::string gpu;               // the GPU that ran springs ("" when none did)
  std::string note;              // why Auto ran no GPU, where it could not make one
  std::size_t threads = 1;       // CPU threads of the build
  std::vector<GridBuildStage> stages;   // the stages, in order
  std::vector<GridLevelReport> levels;  // each level's spring dynamics
  double seconds = 0;                   // wall time in all
  std::string to_string() const;  // the table `gpgpu earth --verbose` prints
  std::string summary() const;    // one line: "built on the GPU (...) in 0.85 s"
};

// A grid and the report of its build (build_grid_reported).
struct GridBuild {
  Grid grid;               // the grid
  GridBuildReport report;  // how it was built
};

// Builds the grid. `gpu`: the Context for the spring dynamics (null: make one when
// options.device asks for the GPU, or Auto finds one worth trying). Throws ArgumentError
// for a level outside 0..max_grid_level or options out of range (beta <= 0, tolerance <= 0,
// sweeps < 0), ContextError for GridDevice::Gpu without a usable GPU.
Grid build_grid(const GridOptions& options, const Context* gpu = nullptr);
// The same, with the report of where the time went (`gpgpu earth --verbose`).
GridBuild build_grid_reported(const GridOptions& options, const Context* gpu = nullptr);

// Measured properties of a grid and the results of its consistency checks.
struct GridStatistics {
  int level = 0;  // the grid's level
  std::size_t cells = 0, triangles = 0, edges = 0, pentagons = 0, hexagons = 0;  // counts
  long long euler_characteristic = 0;  // cells - edges + triangles: 2 for a sphere
  double min_spacing = 0, max_spacing = 0, mean_spacing = 0;  // neighbour arcs (unit sphere)
  double min_area = 0, max_area = 0, area_ratio = 0;          // control volumes
  double area_sum_error = 0;                                  // |sum of areas - 4 pi|
  double max_radius_error = 0;                                // max | |centre| - 1 |
  double max_centroid_offset = 0;  // max distance point - volume centroid, over spacing
  double mean_centroid_offset = 0;  // mean distance point - volume centroid, over spacing
  bool neighbours_symmetric = false;  // j in nb(i) <=> i in nb(j)
  bool neighbours_counter_clockwise = false;  // every cell lists its neighbours counter-clockwise
  bool triangles_consistent = false;  // each triangle lists the cells that list it
  bool normals_outward = false;       // edge normals point from the cell to the neighbour
  // A table of the figures, lengths in km on a sphere of `radius_km`.
  std::string to_string(double radius_km = 6371.22) const;
};

// Measures the grid and runs its consistency checks.
GridStatistics statistics(const Grid& grid);

// The centroid of cell i's control volume (unit vector): its first moment, the integral of
// x over the volume, is exactly -1/2 sum_k length_k * normal_k (Stokes), normalised.
Vec3 control_volume_centroid(const Grid& grid, std::size_t cell);

}  // namespace gpgpu::earth
