// Internal: the GLSL of the scan kernels, one source specialised by #defines.
#pragma once

#include <cstdint>
#include <string>

#include "glsl_ops.hpp"
#include "gpgpu/element_type.hpp"
#include "gpgpu/primitives.hpp"
#include "subgroup_glsl.hpp"

namespace gpgpu::primitives {

// What one scan kernel variant does.
enum class ScanMode {
  TileReduce = 0,     // each tile's total into tile_values[tile] (reduce-then-scan, pass 1)
  TileDownsweep = 1,  // scan each tile from the exclusive prefix in tile_values[tile] (pass 3)
  LookBack = 2,       // single pass: decoupled look-back over tile_flags / tile_values
  SmallScan = 3,      // one work group: exclusive scan of tile_values[0, tiles) in place (pass 2)
};

struct ScanShape {
  int local = 256;   // invocations per work group
  int scalars = 16;  // scalars per invocation (a multiple of 4 and of components)
  int rake = 8;      // invocations per raking segment of the block scan
  int window = 32;   // tiles read at once by the look-back
};

// The tile kernels' shape for a (filled-in) tuning and elements of `components` scalars.
ScanShape scan_shape(const PrimitiveTuning& t, int components);

// Uniforms: in_first, out_first (scalars), total (scalars), tiles, vec4_io, inclusive, epoch
// (look-back), per_thread (small scan). Blocks: in4/in1 (the input), out4/out1 (the
// output), tile_values, tile_flags (look-back): up to 6. `narrow` (devices with 4 storage
// blocks, OpenGL ES 3.1's minimum): in1, out1, tile_values, tile_flags at bindings 0-3,
// tiles moved as vec4 through scalar loads and stores.
std::string scan_source(ElementType type, int components, const Operator& op, ScanMode mode,
                        const ScanShape& shape, bool narrow = false);
// Shared memory a tile kernel declares.
std::int64_t scan_shared_bytes(const ScanShape& shape, int components, ScanMode mode);

// The serial variant for CPU devices (modes TileReduce and TileDownsweep only; the tiles are
// invocations' runs of `chunk` elements), reading as `loads` says (buffer textures where the
// device has them). Uniforms: in_first, out_first (scalars), count (elements), chunk, tiles,
// vec4_io, inclusive. Blocks: the input (input_glsl), out4, out1, tile_values; `narrow`:
// the input, out1 and tile_values from binding 0.
std::string scan_serial_source(ElementType type, int components, const Operator& op, ScanMode mode,
                               int local, Loads loads, bool narrow = false);

// The single-pass subgroup scan of scalars with a built-in operator: `vec4s` vec4 rows per
// invocation kept in registers, tiles of local * vec4s * 4 scalars, look-back by a subgroup
// with decoupled fallback (look_back_glsl). Uniforms: in_first, out_first, total (scalars),
// tiles, vec4_io, inclusive, epoch, spin_limit. Blocks: input (input_glsl), out4/out1,
// tile_values, tile_flags.
std::string scan_subgroup_source(ElementType type, Op op, int local, int vec4s, const Subgroups& sg,
                                 Loads loads);
// Shared memory it declares.
std::int64_t scan_subgroup_shared_bytes(int local, const Subgroups& sg);

// The GLSL block-scan helpers (thread_sums, rake_sums, tile_total, block_exclusive) over the
// element type `T` and operator `opt` (defined before), for reuse by other tiled kernels.
extern const char* const block_scan_glsl;

}  // namespace gpgpu::primitives
