// gpgpu/earth/operators.hpp — the finite-volume operators of the model, in float64 on the CPU.
//
//   const gpgpu::earth::Grid grid = gpgpu::earth::build_grid({.level = 5});
//   std::vector<double> psi = ...;                        // one value per cell
//   std::vector<gpgpu::earth::Vec3> g = gpgpu::earth::gradient(grid, psi);
//   std::vector<double> lap = gpgpu::earth::divergence(grid, g);
//
// These are the reference the GPU kernels are tested against and what the pictures and
// diagnostics use. The discretisation (Tomita et al. 2001, the NICAM shallow-water model) is
// collocated: every field lives at the cell centres; vectors are 3-D Cartesian, tangent to
// the sphere. For each cell:
//   corner value  phi_v = sum of the corner's triangle's three cells times corner_weights
//                 (for vectors, then projected onto the tangent plane at the corner);
//   divergence    (1/A) sum_k l_k n_k . (F_{k-1} + F_k) / 2        (Gauss)
//   gradient      P (1/A) sum_k l_k n_k ((phi_{k-1} + phi_k) / 2 - phi_cell)
//   curl          (1/A) sum_k l_k t_k . (u_{k-1} + u_k) / 2        (Stokes, radial part)
// with edge k from corner k-1 to corner k, l its length, n its outward normal, t = m x n
// its counter-clockwise tangent at its midpoint m, and P the projection onto the tangent
// plane at the cell. Subtracting phi_cell in the gradient removes sum_k l_k n_k (not zero on
// the sphere), so a constant has zero gradient exactly. On the unit sphere: divide by the
// radius for physical units.
//   laplacian     sum_k (l_k / (d_k A)) (phi_k - phi_cell): the two-point Laplacian used
//                 only for the hyperdiffusion (first order on irregular cells, which is
//                 harmless for a damping term).
#pragma once

#include <span>
#include <vector>

#include "gpgpu/earth/grid.hpp"

namespace gpgpu::earth {

// The corner values of a cell field, one per dual triangle (above).
std::vector<double> corner_values(const Grid& grid, std::span<const double> cells);
// The corner values of a vector field, projected onto each corner's tangent plane.
std::vector<Vec3> corner_vectors(const Grid& grid, std::span<const Vec3> cells);

// The divergence of a vector field at every cell (above).
std::vector<double> divergence(const Grid& grid, std::span<const Vec3> field);
// The gradient of a scalar field at every cell (above).
std::vector<Vec3> gradient(const Grid& grid, std::span<const double> field);
// The curl (radial component) of a vector field at every cell (above).
std::vector<double> curl(const Grid& grid, std::span<const Vec3> field);
// The two-point Laplacian of a scalar field at every cell (above).
std::vector<double> laplacian(const Grid& grid, std::span<const double> field);
// The two-point Laplacian of each component of a vector field, projected onto the tangent plane.
std::vector<Vec3> vector_laplacian(const Grid& grid, std::span<const Vec3> field);

// The Coriolis term f r x u at every cell (exact pointwise on a collocated grid), f = 2
// omega z.
std::vector<Vec3> coriolis(const Grid& grid, std::span<const Vec3> velocity, double omega);

// Throws SizeMismatchError unless `count` equals the grid's cells; names `what`.
void check_cell_count(const Grid& grid, std::size_t count, const char* what);

}  // namespace gpgpu::earth
