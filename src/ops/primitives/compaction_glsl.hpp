// Internal: the GLSL of the compaction kernels (copy_if, partition, unique).
#pragma once

#include <cstdint>
#include <string>

#include "glsl_ops.hpp"
#include "gpgpu/element_type.hpp"
#include "subgroup_glsl.hpp"

namespace gpgpu::primitives {

enum class CompactKind { CopyIf, Partition, Unique };

// bool keep(T x, uint i): the predicate (CopyIf, Partition) or "first of its run" (Unique,
// which compares with element(i - 1) and needs element() and the uniform `first`).
std::string keep_function(CompactKind kind, const std::string& predicate, const std::string& t);

// Compaction in one pass on subgroups: tiles of local * rows elements, subgroup s owning
// rows [s * rows, (s + 1) * rows) of SG_SIZE consecutive elements; a row's selected elements
// find their places with a ballot, tiles chain their counts with the subgroup look-back
// (look_back_glsl). The last tile writes the count to count_out[count_offset].
// Partition puts the others after all selected ones, so it needs their number first: a
// count_only kernel adds it to kept_total[0] (zero between calls), which the scatter kernel
// reads and its last tile resets. Uniforms: first (element), count (elements), tiles,
// count_offset, epoch, spin_limit. Blocks: input (input_glsl), out1, count_out,
// tile_values, tile_flags, kept_total.
std::string compaction_subgroup_source(ElementType type, int components, CompactKind kind,
                                       const std::string& predicate, int local, int rows,
                                       const Subgroups& sg, Loads loads, bool count_only = false);
// Shared memory it declares.
std::int64_t compaction_subgroup_shared_bytes(int local, const Subgroups& sg);

}  // namespace gpgpu::primitives
