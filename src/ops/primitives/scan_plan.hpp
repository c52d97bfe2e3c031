// Internal: which scan kernels a call runs, chosen from DeviceInfo and the tuning alone
// (scan.cpp launches them; the compaction and the sort's digit counts scan through it).
#pragma once

#include <vector>

#include "gpgpu/context.hpp"
#include "gpgpu/primitives.hpp"
#include "primitive_registry.hpp"
#include "scan_glsl.hpp"
#include "subgroup_glsl.hpp"

namespace gpgpu::primitives {

enum class ScanPath {
  Subgroup,        // one pass on the subgroup kernels (scalars, a built-in operator)
  SinglePass,      // one pass, tiles chained by decoupled look-back (GPUs)
  ReduceThenScan,  // tile totals, a one-group scan of them, the tiles again
  Serial,          // the same over invocations' runs (CPU devices)
};

struct ScanPlan {
  ScanPath path = ScanPath::ReduceThenScan;
  ScanShape shape;               // the tile kernels, and the small scan of every path
  bool narrow = false;           // the tile and serial kernels' 4-block form
  Loads loads = Loads::Storage;  // the subgroup and serial kernels' input
  Subgroups sg;                  // Subgroup: the layer, its work group and rows per invocation
  int sg_local = 0, vec4s = 0;
  // Subgroup and SinglePass: `pass` alone. ReduceThenScan and Serial: `totals` (skipped for
  // one tile), `small` (the scan of the totals), `pass`.
  KernelSpec totals, small, pass;
  std::vector<KernelSpec> kernels() const;
};

// `texels`: the input Buffer's elements where known (reduce_tuning).
ScanPlan plan_scan(const DeviceInfo& info, const PrimitiveTuning& t, ElementType type,
                   int components, const Operator& op, ScanAlgorithm algorithm,
                   std::size_t texels = 0);

}  // namespace gpgpu::primitives
