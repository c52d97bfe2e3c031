#include "scan_plan.hpp"

#include <fmt/format.h>

#include "device_fit.hpp"
#include "glsl_ops.hpp"
#include "primitive_plans.hpp"

namespace gpgpu::primitives {

namespace {

// Software devices always reduce-then-scan: llvmpipe ends an invocation's loops after 65535
// trips in all, so a look-back wait (a loop) cannot be made long enough to be safe there
// when the OS deschedules the tile being waited for.
ScanPath tile_path(const DeviceInfo& info, ScanAlgorithm a) {
  if (info.is_software) return ScanPath::ReduceThenScan;
  return a == ScanAlgorithm::ReduceThenScan ? ScanPath::ReduceThenScan : ScanPath::SinglePass;
}

// The subgroup scan applies (subgroup kernels on, scalars, a built-in operator, not an
// explicit reduce-then-scan) and fits: in1/in4 (unless read as texels), out4, out1,
// tile_words at bindings 0-4.
bool subgroup_scan_fits(const DeviceFit& fit, const ScanPlan& p, const Operator& op, int components,
                        ScanAlgorithm a) {
  return p.sg.on && op.is_builtin() && components == 1 && a != ScanAlgorithm::ReduceThenScan &&
         fits_storage(fit, p.loads == Loads::Texels ? 3 : 5, 5) && p.sg_local <= fit.invocations &&
         scan_subgroup_shared_bytes(p.sg_local, p.sg) <= fit.shared_bytes;
}

// The wide kernels of a path fit: its most storage blocks and binding points.
bool wide_fits(const DeviceFit& fit, const ScanPlan& p) {
  switch (p.path) {
    case ScanPath::SinglePass:
      return fits_storage(fit, 6, 6);
    case ScanPath::ReduceThenScan:
      return fits_storage(fit, 5, 5);
    case ScanPath::Serial:
      return fits_storage(fit, p.loads == Loads::Texels ? 3 : 5, 5);
    case ScanPath::Subgroup:
      return true;
  }
  return true;
}

KernelSpec tile_kernel(const ScanPlan& p, ElementType type, int components, const Operator& op,
                       ScanMode mode) {
  return {fmt::format("scan {} {} {} mode{} {}x{}{}", to_string(type), components, op_key(op),
                      static_cast<int>(mode), p.shape.local, p.shape.scalars,
                      p.narrow ? " narrow" : ""),
          [=] { return scan_source(type, components, op, mode, p.shape, p.narrow); }};
}

KernelSpec serial_kernel(const ScanPlan& p, ElementType type, int components, const Operator& op,
                         ScanMode mode) {
  return {fmt::format("scan_serial {} {} {} mode{} {} {}{}", to_string(type), components,
                      op_key(op), static_cast<int>(mode), p.shape.local, to_string(p.loads),
                      p.narrow ? " narrow" : ""),
          [=] {
            return scan_serial_source(type, components, op, mode, p.shape.local, p.loads, p.narrow);
          }};
}

KernelSpec subgroup_kernel(const ScanPlan& p, ElementType type, Op op) {
  return {fmt::format("scan_sg {} {} {}x{} sg{}{} {}", to_string(type), to_string(op), p.sg_local,
                      p.vec4s, p.sg.size, p.sg.native ? "" : "e", to_string(p.loads)),
          [=] { return scan_subgroup_source(type, op, p.sg_local, p.vec4s, p.sg, p.loads); }};
}

}  // namespace

std::vector<KernelSpec> ScanPlan::kernels() const {
  std::vector<KernelSpec> all;
  for (const KernelSpec* k : {&totals, &small, &pass}) {
    if (!k->key.empty()) all.push_back(*k);
  }
  return all;
}

ScanPlan plan_scan(const DeviceInfo& info, const PrimitiveTuning& t, ElementType type,
                   int components, const Operator& op, ScanAlgorithm algorithm,
                   std::size_t texels) {
  const DeviceFit fit = device_fit(info);
  ScanPlan p;
  p.shape = scan_shape(t, components);
  p.loads =
      t.texel_loads == 1 && texel_loads_possible(fit, texels) ? Loads::Texels : Loads::Storage;
  p.sg = subgroups_for(info, t.subgroups);
  if (p.sg.on) {
    p.sg_local = subgroup_local(t.scan_local, p.sg);
    p.vec4s = t.scan_scalars / 4;
  }
  if (subgroup_scan_fits(fit, p, op, components, algorithm)) {
    p.path = ScanPath::Subgroup;
    p.pass = subgroup_kernel(p, type, op.builtin());
    return p;
  }
  p.path = tile_path(info, algorithm);
  // CPU-style kernels (texel_loads): the serial runs, through buffer textures where the
  // device has them.
  if (p.path == ScanPath::ReduceThenScan && t.texel_loads == 1) p.path = ScanPath::Serial;
  p.narrow = !wide_fits(fit, p);
  if (p.path == ScanPath::SinglePass) {
    p.pass = tile_kernel(p, type, components, op, ScanMode::LookBack);
    return p;
  }
  const bool serial = p.path == ScanPath::Serial;
  p.totals = serial ? serial_kernel(p, type, components, op, ScanMode::TileReduce)
                    : tile_kernel(p, type, components, op, ScanMode::TileReduce);
  p.small = tile_kernel(p, type, components, op, ScanMode::SmallScan);
  p.pass = serial ? serial_kernel(p, type, components, op, ScanMode::TileDownsweep)
                  : tile_kernel(p, type, components, op, ScanMode::TileDownsweep);
  return p;
}

}  // namespace gpgpu::primitives

namespace gpgpu::primitives {
std::vector<KernelSpec> scan_kernels(const DeviceInfo& info, const PrimitiveTuning& t,
                                     ElementType type, int components, const Operator& op,
                                     ScanAlgorithm algorithm) {
  return plan_scan(info, t, type, components, op, algorithm).kernels();
}
}  // namespace gpgpu::primitives
