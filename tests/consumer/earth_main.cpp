// A user's program built against an installed gpgpu::earth: a small geodesic grid, checked
// against the sphere it tiles.
#include <cmath>
#include <cstdio>
#include <numbers>

#include <gpgpu/earth.hpp>
#include <gpgpu/error.hpp>

int main() {
  try {
    gpgpu::earth::GridOptions options;
    options.level = 2;
    const auto grid = gpgpu::earth::build_grid(options);
    const auto s = gpgpu::earth::statistics(grid);
    // 10 * 4^2 + 2 cells; the control volumes tile the unit sphere, whose area 4 pi they sum
    // to up to float64 rounding over 162 cells of ~40 terms each (1e-12 is far above that).
    const bool ok = s.cells == 162 && s.euler_characteristic == 2 && s.neighbours_symmetric &&
                    s.area_sum_error <= 1e-12 * 4 * std::numbers::pi;
    std::printf("earth consumer: %zu cells, Euler characteristic %lld, area error %.3g: %s\n",
                s.cells, s.euler_characteristic, s.area_sum_error, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
  } catch (const gpgpu::Error& e) {
    std::fprintf(stderr, "gpgpu error: %s\n", e.what());
    return 1;
  }
}
