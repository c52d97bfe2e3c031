#include "look_back_glsl.hpp"

namespace gpgpu::primitives {

const char* const look_back_glsl = R"(
const uint FLAG_A = 1u;
const uint FLAG_P = 2u;

// One half of a value as a word: its 16 bits above this call's tag.
uint lb_word(uint half_bits) { return (half_bits << 16u) | epoch; }

// Two independent exchanges, no fence between them: a reader validates each word alone.
void lb_publish(uint tile, LB_T value, uint state) {
  uint at = 1u + 4u * tile + (state == FLAG_P ? 2u : 0u);
  uint bits = LB_BITS(value);
  atomicExchange(tile_words[at], lb_word(bits & 0xffffu));
  atomicExchange(tile_words[at + 1u], lb_word(bits >> 16u));
}

bool lb_tagged(uint lo, uint hi) {
  return (lo & 0xffffu) == epoch && (hi & 0xffffu) == epoch;
}

// The tile's state (0: not ready) and, when ready, its value. Four plain loads of a volatile
// block (atomicOr(flag, 0) polls measured the same on the H100), in any order.
uint lb_read(uint tile, out LB_T value) {
  uint at = 1u + 4u * tile;
  uint a_lo = tile_words[at];
  uint a_hi = tile_words[at + 1u];
  uint p_lo = tile_words[at + 2u];
  uint p_hi = tile_words[at + 3u];
  value = LB_IDENT;
  if (lb_tagged(p_lo, p_hi)) {
    value = LB_FROM_BITS((p_lo >> 16u) | (p_hi & 0xffff0000u));
    return FLAG_P;
  }
  if (lb_tagged(a_lo, a_hi)) {
    value = LB_FROM_BITS((a_lo >> 16u) | (a_hi & 0xffff0000u));
    return FLAG_A;
  }
  return 0u;
}

LB_T lb_exclusive_prefix(uint tile) {
  LB_T prefix = LB_IDENT;
  uint end = tile;  // tiles [0, end) are still to be folded in
  uint spins = 0u;
  uint lane = sg_lane();
  while (end > 0u) {
    uint state = FLAG_P;  // lanes before tile 0: an inclusive identity
    LB_T v = LB_IDENT;
    if (lane < end) state = lb_read(end - 1u - lane, v);
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
      LB_T unused;
      uint again = sg_shuffle(lane == 0u ? lb_read(end - 1u, unused) : 0u, 0u);
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
