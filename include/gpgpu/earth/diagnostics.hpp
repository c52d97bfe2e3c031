// gpgpu/earth/diagnostics.hpp — error norms, conservation, and fields moved between grids.
//
//   auto exact = gpgpu::earth::analytic_height(grid, setup, model.time());
//   gpgpu::earth::ErrorNorms e = gpgpu::earth::height_errors(grid, model.fields().height, exact);
//   gpgpu::earth::Locator fine(reference_grid);
//   auto ref = gpgpu::earth::interpolate(fine, reference_height, grid.centres);
//   double l2 = gpgpu::earth::height_errors(grid, model.fields().height, ref).l2;
//
// Norms are Williamson et al.'s (1992, eq. 82-84) with the integrals as sums over cells
// weighted by their areas: l1 = I(|h - h_T|) / I(|h_T|), l2 = sqrt(I((h - h_T)^2) /
// I(h_T^2)), linf = max |h - h_T| / max |h_T|.
//
// Locator finds the grid's triangle holding a point (a greedy walk from the last answer,
// so nearby queries in sequence are fast) and interpolates linearly in it: second order,
// which is what comparing a coarse run with a fine reference needs (the reference's own
// interpolation error is then far below the coarse run's).
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "gpgpu/earth/cases.hpp"
#include "gpgpu/earth/grid.hpp"
#include "gpgpu/earth/model.hpp"

namespace gpgpu::earth {

// Williamson et al.'s normalised error norms of a height field against the truth:
// l1 and l2 area-weighted, linf the largest error over the largest |truth|.
struct ErrorNorms {
  double l1 = 0, l2 = 0, linf = 0;  // as above
};

// Throws SizeMismatchError unless both spans have one value per cell.
ErrorNorms height_errors(const Grid& grid, std::span<const double> height,
                         std::span<const double> truth);

// The global integrals of gpgpu/earth/model.hpp's GlobalSums, in float64 from fields (the
// vorticity by the reference curl operator).
GlobalSums host_sums(const Grid& grid, const CaseSetup& setup, const Fields& fields);

// Relative changes (now - start) / |start| of the sums, except the circulation (zero for
// the exact flow), which is reported as its absolute change (m^2/s).
struct Drift {
  double mass = 0, energy = 0, potential_enstrophy = 0, circulation = 0;  // as above
};
// The drift of the sums from `start` to `now` (above).
Drift drift(const GlobalSums& start, const GlobalSums& now);

// Finds which cells hold points of the sphere, walking from the last point found (fast for
// points that come in order, as a picture's pixels do).
class Locator {
 public:
  explicit Locator(const Grid& grid);  // the grid must outlive the Locator

  // The dual triangle a point lies in, with interpolation weights.
  struct Hit {
    std::array<std::size_t, 3> cells{};  // the triangle's three cells
    std::array<double, 3> weights{};  // sum to 1; linear on the triangle's plane
    std::size_t nearest = 0;          // the cell whose centre is nearest
  };
  // The triangle holding the unit vector p.
  Hit locate(const Vec3& p);
  // The cell whose control volume holds p.
  std::size_t cell_of(const Vec3& p);

  const Grid& grid() const { return *grid_; }  // the grid it searches

 private:
  std::size_t nearest_from(std::size_t start, const Vec3& p) const;
  const Grid* grid_;
  std::size_t last_ = 0;
};

// values (one per cell of locator.grid()) interpolated to the points.
std::vector<double> interpolate(Locator& locator, std::span<const double> values,
                                std::span<const Vec3> points);

}  // namespace gpgpu::earth
