// Internal: the chained scan across tiles with decoupled look-back (Merrill & Garland), done
// by a whole subgroup at once, with a decoupled fallback, shared by the subgroup kernels of
// the scan and the compaction.
#pragma once

namespace gpgpu::primitives {

// Needs the subgroup layer and, defined before it: LB_T (the aggregate's type), LB_IDENT (its
// identity), LB_T lb_op(LB_T, LB_T) and LB_T lb_reduce(LB_T) (a commutative operator and
// its subgroup reduction), LB_T lb_fallback(uint tile) (the tile's aggregate computed from
// its input by the calling subgroup), the coherent volatile blocks tile_values (LB_T, two per tile:
// aggregate, inclusive prefix) and tile_flags (uint: [0] the tile counter, [1 + tile] the
// tile's flag), and the uniforms epoch and spin_limit. Provides:
//   lb_publish(tile, value, state)   one lane publishes FLAG_A (aggregate) or FLAG_P
//   lb_exclusive_prefix(tile)        the whole subgroup: the combination of tiles [0, tile)
//
// A flag is (epoch << 2) | state, so flags left by earlier calls read as "not ready". The
// subgroup reads the flags of the SG_SIZE nearest unfolded predecessors at once, folds
// those before the first that is not ready, and stops at the first inclusive prefix. When
// the nearest predecessor stays not ready for spin_limit polls, the subgroup reduces that
// tile's input itself (decoupled fallback, as portable GPU scans do without forward-progress
// guarantees) and uses it if the tile still has not published: a not-ready tile has not
// written any output yet, so its input was intact when read. Every loop is bounded: a trip
// folds at least one tile, or is one of at most spin_limit polls before a fallback does.
extern const char* const look_back_glsl;

}  // namespace gpgpu::primitives
