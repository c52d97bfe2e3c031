// Internal: the GLSL of the LSD radix sort's two kernels per 8-bit digit pass.
#pragma once

#include <cstdint>
#include <string>

#include "gpgpu/element_type.hpp"
#include "gpgpu/primitives.hpp"
#include "subgroup_glsl.hpp"

namespace gpgpu::primitives {

struct SortShape {
  bool serial = false;  // one invocation per tile, sequentially (CPU devices)
  int local = 256;      // invocations per work group (ranked: a multiple of 32)
  int keys = 16;        // keys per invocation (ranked: >= 16, so the rank masks fit)
  bool texels = false;  // serial: read keys and values through buffer textures
  int tile() const { return serial ? keys : local * keys; }
};

// The count-and-scatter kernels' shape for a (filled-in) tuning; texels as the tuning asks
// (the planner keeps them only where the device has buffer textures).
SortShape sort_shape(const PrimitiveTuning& t);
// Shared memory the scatter kernel of `shape` declares (the count kernel's is less).
std::int64_t sort_shared_bytes(const SortShape& shape);

// The #defines every sort kernel starts with (KT, KEY_KIND, L, K, WITH_VALUES, TEXELS,
// KSAMPLER), and the radix key functions (uniforms shift and descending; key_bits,
// key_from_bits, radix_key, digit_of).
std::string sort_header(ElementType key_type, const SortShape& shape, bool with_values);
extern const char* const sort_key_glsl;
// `kernel` with SORT_IO replaced by the key and value blocks and the uniforms every scatter
// kernel has (in_first, out_first, count, tiles, [vin_first, vout_first, iota_values,
// iota_base]); the kernel defines VALUES_IN_BINDING and VALUES_OUT_BINDING before it.
std::string with_sort_io(std::string kernel);

// Tile histogram: counts[digit * tiles + tile] = keys of the tile with that digit.
// Uniforms: in_first, count, tiles, shift, descending. Blocks: keys_in, counts.
std::string sort_upsweep_source(ElementType key_type, const SortShape& shape);

// Stable scatter of a tile: ranks keys by digit in shared memory, stages them in sorted
// order and writes each digit's run at offsets[digit * tiles + tile] (the exclusive scan
// of the counts). with_values: moves uint32 values alongside (or, with iota_values set,
// writes the keys' original indices iota_base + i). Uniforms: in_first, out_first,
// count, tiles, shift, descending, [vin_first, vout_first, iota_values, iota_base].
// Blocks: keys_in, keys_out, offsets, [values_in, values_out].
// values_only (with_values; for devices with 4 storage blocks, OpenGL ES 3.1's minimum): the
// same ranking, but only the values are written (keys_in, values_out, offsets, values_in
// at bindings 0-3); a pass runs the keys-only kernel, then this one.
std::string sort_downsweep_source(ElementType key_type, bool with_values, const SortShape& shape,
                                  bool values_only = false);

// The serial variant of both (same uniforms and blocks; upsweep = true for the counts).
// Each invocation owns a tile and 256 counters in shared memory; it counts its tile's
// digits, or walks its keys in order and writes each at its digit's next offset, which is
// stable without any ranking.
std::string sort_serial_source(ElementType key_type, bool with_values, bool upsweep,
                               const SortShape& shape, bool values_only = false);

// Onesweep (radix_onesweep_glsl.cpp). The histogram of all four digits, in one dispatch;
// its last group publishes every digit's global start in slot 0 of the four passes' status
// regions. Uniforms: in_first, count, chunk (keys per group), descending, slots, code_a,
// code_p. Blocks: keys_in, totals (1024 zeros), status, done_count (a zero).
std::string onesweep_histogram_source(ElementType key_type, int local);
std::int64_t onesweep_histogram_shared_bytes();
// One digit pass (shape.local a multiple of the subgroup size, shape.keys per invocation).
// Uniforms: in_first, out_first, count, tiles, pass, shift, descending, slots, code_a,
// code_p, spin_limit, [vin_first, vout_first, iota_values, iota_base]. Blocks: keys_in,
// keys_out, status, tile_counter (a zero), [values_in, values_out].
std::string onesweep_pass_source(ElementType key_type, bool with_values, const SortShape& shape,
                                 const Subgroups& sg);
// Words of that pass's shared tile: the sorted keys, or the tables that precede them.
std::int64_t onesweep_tile_words(const SortShape& shape, const Subgroups& sg);

}  // namespace gpgpu::primitives
