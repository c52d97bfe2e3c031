// The GLSL compute kernels of the shallow-water model (model_kernels.cpp) and the device
// layout they share with model_geometry.cpp.
//
// Device layout (float32 unless said; N local cells of a subdomain, M of them with
// tendencies (partition.hpp); slot-major tables [k * M + cell], k < 6, so that consecutive
// invocations read consecutive words; the kernels take M as the uniform `stride`):
//   state     vec4 per cell: (h - mean_depth, u.x, u.y, u.z); the depth is stored as a
//             deviation from the initial mean so that float32 keeps ~7 digits of the part
//             that varies (case 5: +-500 m around 5400 m).
//   position  vec4 per cell: (x, y, z, g * surface height)
//   slot      ivec4 [6][M]: (bits of l n.x, l n.y, l n.z, neighbour): edge k's outward
//             normal times its length (unit sphere) and neighbour k; a pentagon's sixth
//             slot repeats neighbour 0 with a zero edge
//   neighbour int [6][M]; correction, laplace float [6][M]: c l d / A and l / (d A)
//   inv_area  float per cell of M: 1 / (a A), a the radius (m), A the unit-sphere area
// A cell's control-volume corner k is the centroid of (cell, neighbour k, neighbour k+1).
#pragma once

#include <string>

namespace gpgpu::earth::detail {

// Stage tendencies: reads state, position, slot, inv_area; writes tend = (dh/dt
// uncorrected, du/dt). Defines: ADVECTION_ONLY (case 1: du = 0), DIAGNOSE (writes per-cell
// (A h', A energy, A potential enstrophy, A zeta) into tend instead), PRELOAD (gather all
// six neighbours before the corner walk). `group` invocations per work group. A dispatch
// of n items computes cells [first, first + n).
std::string tendency_kernel_source(int group);

// The tendency kernel's declarations (its buffers but Tend, uniforms and corner helpers).
std::string tendency_declarations(int group);
// The tendency kernel's body as `void name(uint i)`, the tendencies of cell i, reading the
// state from the array `input` instead of `state` (for the one-dispatch step, whose stages
// read different arrays); it needs tendency_declarations and a `tend` array.
std::string tendency_function(const std::string& name, const std::string& input);

// `vec4 corrected(uint i)`: tend[tend_in + i] with the continuity correction applied (reads
// tend, neighbour, correction, stride and tend_in).
std::string corrected_function();
// `vec4 rk_stage(uint i, int s, float next_step, float acc_step)`: Runge-Kutta stage s at
// cell i from its corrected tendency; returns the next stage's input (at s == 3 the step's
// result) and moves acc on. `base`: the GLSL expression of the step's starting state at i.
std::string rk_stage_function(const std::string& base);

// One whole step in one dispatch (ModelOptions::one_dispatch_steps; step_kernel.cpp).
std::string one_dispatch_step_source(int group);

// The same tendencies with eight invocations a cell (dispatch 8 items a cell; `group` a
// multiple of 8, 56 bytes of shared memory an invocation). fused: the previous stage's
// update applied to every state it reads (ModelOptions::fuse_stages), reading tend at
// tend_in, writing it at tend_out and moving acc on as the update kernel would; it also
// binds neighbour, correction and acc (8 storage buffers). Takes ADVECTION_ONLY.
std::string tendency_lanes_source(int group, bool fused);

// Applies the continuity correction to tend.x (reading tend from tend_in) and the
// Runge-Kutta update of the stage.
// Like every kernel below, a dispatch of n items covers cells [first, first + n).
std::string update_kernel_source(int group);

// Hyperdiffusion: lap = L(state); then next = state - factor L(lap), u projected (out of
// place, so that a step computed in two parts reads no cell the other part finished).
std::string laplacian_kernel_source(int group);
std::string diffusion_kernel_source(int group);

// The state check: flags = (h is NaN/inf, u has a NaN/inf, the depth is outside
// (lowest, highest)), 1 or 0 per cell.
std::string check_kernel_source(int group);

}  // namespace gpgpu::earth::detail
