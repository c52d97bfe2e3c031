// The one-dispatch step (ModelOptions::one_dispatch_steps): a Runge-Kutta step's four
// tendencies and updates in one dispatch, its work groups meeting at a grid-wide wait
// between them instead of at the end of a dispatch. A small grid's step is its chain of
// dependent dispatches, each of which drains the GPU (docs/earth-speed.md); a wait between
// resident work groups costs a few polls of one word in the shared cache.
#include <fmt/format.h>

#include "earth/model_kernels.hpp"

namespace gpgpu::earth::detail {

namespace {

// Binding 0-3 are the tendency kernel's (state, position, slot, inv_area). The stages'
// inputs and tendencies are written and read by different work groups within the dispatch:
// coherent, so that a read after the grid-wide wait sees the other groups' writes.
constexpr const char* step_declarations = R"(
layout(std430, binding = 4) coherent buffer Tend { vec4 tend[]; };
layout(std430, binding = 5) readonly buffer Neighbour { int neighbour[]; };
layout(std430, binding = 6) readonly buffer Correction { float correction[]; };
layout(std430, binding = 7) coherent buffer StageX { vec4 stage_x[]; };
layout(std430, binding = 8) coherent buffer StageY { vec4 stage_y[]; };
layout(std430, binding = 9) buffer Acc { vec4 acc[]; };  // each cell's own invocation's
layout(std430, binding = 10) writeonly buffer Next { vec4 next[]; };
// arrived: the work groups' arrivals at the waits so far (bit 31: a group gave up);
// departed: the groups done; gave_up: 1 once a wait has given up, until the host clears it.
layout(std430, binding = 11) coherent buffer Wait { uint arrived; uint departed; uint gave_up; };
uniform uint cells;       // the cells of the step: [0, cells)
uniform uint spin_inner;  // a wait gives up after spin_inner x spin_rounds polls
uniform uint spin_rounds;
uniform vec4 next_steps;  // dt times each stage's weight in the next stage's input
uniform vec4 acc_steps;   // dt times each stage's weight in the step's result
const uint tend_in = 0u;
)";

// The grid-wide wait: every invocation's buffer writes before it are visible to every
// invocation after it. One invocation a group counts the group in and polls until all have
// arrived at this wait (the nth); one that polls spin_inner x spin_rounds times gives up for
// all (bit 31 of arrived ends every poll), so that work groups that were not all resident at
// once end the dispatch with wrong results and gave_up set, instead of spinning past the
// GPU's watchdog. Two nested loops, as llvmpipe ends any one loop after 65,535 iterations.
// The last group out resets the count for the next dispatch.
constexpr const char* grid_wait = R"(
void grid_wait(uint nth) {
  memoryBarrierBuffer();
  barrier();
  if (gl_LocalInvocationIndex == 0u) {
    uint target = nth * gl_NumWorkGroups.x;
    uint seen = atomicAdd(arrived, 1u) + 1u;
    for (uint r = 0u; seen < target && r < spin_rounds; ++r) {
      for (uint q = 0u; seen < target && q < spin_inner; ++q) {
        seen = atomicOr(arrived, 0u);
      }
    }
    if (seen < target) {
      atomicExchange(gave_up, 1u);
      atomicOr(arrived, 0x80000000u);
    }
  }
  barrier();
}

void grid_leave() {
  if (gl_LocalInvocationIndex == 0u && atomicAdd(departed, 1u) == gl_NumWorkGroups.x - 1u) {
    atomicExchange(arrived, 0u);
    atomicExchange(departed, 0u);
  }
}
)";

// Stage s's update of cell i (rk_stage_function): the next stage's input into stage_x or
// stage_y in turn, the step's result into next.
constexpr const char* step_body = R"(
void update_at(uint i, int s) {
  vec4 v = rk_stage(i, s, next_steps[s], acc_steps[s]);
  if (s == 3) next[i] = v;
  else if (s == 1) stage_y[i] = v;
  else stage_x[i] = v;
}

void main() {
  uint span = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  uint me = gl_GlobalInvocationID.x;
  uint waits = 0u;
  for (int s = 0; s < 4; ++s) {
    for (uint i = me; i < cells; i += span) {
      if (s == 0) tendency_of_state(i);
      else if (s == 2) tendency_of_y(i);
      else tendency_of_x(i);
    }
    grid_wait(++waits);
    for (uint i = me; i < cells; i += span) update_at(i, s);
    if (s < 3) grid_wait(++waits);
  }
  grid_leave();
}
)";

}  // namespace

std::string one_dispatch_step_source(int group) {
  return tendency_declarations(group) + step_declarations + corrected_function() +
         rk_stage_function("state[i]") + grid_wait +
         tendency_function("tendency_of_state", "state") +
         tendency_function("tendency_of_x", "stage_x") +
         tendency_function("tendency_of_y", "stage_y") + step_body;
}

}  // namespace gpgpu::earth::detail
