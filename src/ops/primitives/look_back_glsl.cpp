#include "look_back_glsl.hpp"

namespace gpgpu::primitives {

const char* const look_back_glsl = R"(
const uint FLAG_A = 1u;
const uint FLAG_P = 2u;

void lb_publish(uint tile, LB_T value, uint state) {
  tile_values[2u * tile + (state == FLAG_P ? 1u : 0u)] = value;
  memoryBarrierBuffer();
  atomicExchange(tile_flags[1u + tile], (epoch << 2u) | state);
}

// A plain load of a volatile block (atomicOr(flag, 0) polls measured the same on the H100).
uint lb_state(uint tile) {
  uint f = tile_flags[1u + tile];
  return (f >> 2u) == epoch ? (f & 3u) : 0u;
}

LB_T lb_exclusive_prefix(uint tile) {
  LB_T prefix = LB_IDENT;
  uint end = tile;  // tiles [0, end) are still to be folded in
  uint spins = 0u;
  uint lane = sg_lane();
  while (end > 0u) {
    uint state = FLAG_P;  // lanes before tile 0: an inclusive identity
    LB_T v = LB_IDENT;
    if (lane < end) {
      uint k = end - 1u - lane;
      state = lb_state(k);
      if (state != 0u) {
        memoryBarrierBuffer();
        v = tile_values[2u * k + (state == FLAG_P ? 1u : 0u)];
      }
    }
    uint waiting = sg_ballot_first(sg_ballot(state == 0u));
    uint done = sg_ballot_first(sg_ballot(state == FLAG_P));
    if (done < waiting) {
      prefix = lb_op(prefix, lb_reduce(lane <= done ? v : LB_IDENT));
      break;
    }
    if (waiting > 0u) {
      prefix = lb_op(prefix, lb_reduce(lane < waiting ? v : LB_IDENT));
      end -= waiting;
      spins = 0u;
    } else if (++spins >= spin_limit) {
      LB_T own = lb_fallback(end - 1u);
      memoryBarrierBuffer();
      uint again = sg_shuffle(lane == 0u ? lb_state(end - 1u) : 0u, 0u);
      if (again == 0u) {
        prefix = lb_op(prefix, own);
        end -= 1u;
      }
      spins = 0u;
    }
  }
  return prefix;
}
)";

}  // namespace gpgpu::primitives
