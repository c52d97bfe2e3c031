// Internal: the chained scan across tiles with decoupled look-back (Merrill & Garland), done
// by a whole subgroup at once, with a decoupled fallback, shared by the subgroup kernels of
// the scan and the compaction.
#pragma once

namespace gpgpu::primitives {

// Needs the subgroup layer and, defined before it: LB_T (the aggregate's type, 32 bits),
// LB_IDENT (its identity), LB_BITS(x) and LB_FROM_BITS(u) (an LB_T's bit pattern as a uint
// and back), LB_T lb_op(LB_T, LB_T) and LB_T lb_reduce(LB_T) (a commutative operator and
// its subgroup reduction), LB_T lb_fallback(uint tile) (the tile's aggregate computed from
// its input by the calling subgroup), the coherent volatile block tile_words (uint: [0] the
// tile counter, [1 + 4 * tile + j] the tile's words) and the uniforms epoch (in [1, 65535])
// and spin_limit. Provides:
//   lb_publish(tile, value, state)   one lane publishes FLAG_A (aggregate) or FLAG_P
//   lb_exclusive_prefix(tile)        the whole subgroup: the combination of tiles [0, tile)
//
// Self-validating words, as in the Onesweep sort: a tile's words j = 0, 1 hold the low and
// high 16 bits of its aggregate and j = 2, 3 those of its inclusive prefix, each as
// (16 bits << 16) | epoch. A word is written by one atomic exchange and read whole, and it
// names the call that wrote it, so a reader needs no fence between a flag and a value: a
// value is ready when both of its words carry this call's epoch (the inclusive prefix first,
// else the aggregate), and words left by earlier calls read as "not ready". The host keeps
// the epoch below 2^16 by zeroing the words before it wraps (epoch 0 is never used).
//
// The subgroup reads the words of the SG_SIZE nearest unfolded predecessors at once, folds
// those before the first that is not ready, and stops at the first inclusive prefix. When
// the nearest predecessor stays not ready for spin_limit polls, the subgroup reduces that
// tile's input itself (decoupled fallback, as portable GPU scans do without forward-progress
// guarantees) and uses it if the tile still has not published (read again after a fence): a
// not-ready tile has not written any output yet, so its input was intact when read (a kernel
// that may write over its own input fences its published words before its output). Every
// loop is bounded: a trip folds at least one tile, or is one of at most spin_limit polls
// before a fallback does.
extern const char* const look_back_glsl;

}  // namespace gpgpu::primitives
