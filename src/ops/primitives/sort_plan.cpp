#include "sort_plan.hpp"

#include <fmt/format.h>

#include "device_fit.hpp"
#include "histogram_glsl.hpp"
#include "primitive_plans.hpp"
#include "radix_onesweep.hpp"

namespace gpgpu::primitives {

namespace {

// Onesweep was asked for, the subgroup kernels are on, the count fits the status words'
// 29-bit values, and its kernels fit the device: the pass's keys, status, tile counter (and
// values in and out) at bindings 0-3 (0-5), its work group and shared memory.
bool onesweep_fits(const DeviceFit& fit, const SortPlan& p, const PrimitiveTuning& t,
                   bool with_values, std::size_t count) {
  const int blocks = with_values ? 6 : 4;
  return p.sg.on && t.sort_onesweep == 1 && count < (std::size_t{1} << 29) &&
         fits_storage(fit, blocks, blocks) && p.shape.local <= fit.invocations &&
         onesweep_shared_bytes(p.shape, p.sg) <= fit.shared_bytes &&
         onesweep_histogram_shared_bytes() <= fit.shared_bytes;
}

std::string shape_name(const SortShape& s) {
  return fmt::format("{}{}x{}{}", s.serial ? "serial " : "", s.local, s.keys,
                     s.texels ? " texels" : "");
}

void plan_onesweep(SortPlan& p, const DeviceInfo& info, ElementType key_type, bool with_values,
                   const DeviceFit& fit) {
  p.clear = clear_kernel(info);
  p.histogram_local = fit_local(256, fit);
  const int local = p.histogram_local;
  p.histogram = {fmt::format("sort_os_hist {} {}", to_string(key_type), local),
                 [=] { return onesweep_histogram_source(key_type, local); }};
  const SortShape shape = p.shape;
  const Subgroups sg = p.sg;
  p.pass = {fmt::format("sort_os {} {} {}x{} sg{}{}", to_string(key_type), with_values, shape.local,
                        shape.keys, sg.size, sg.native ? "" : "e"),
            [=] { return onesweep_pass_source(key_type, with_values, shape, sg); }};
}

// The scatter kernels of count, scan and scatter: keys and values at bindings 0-4 (the
// serial form's texel inputs need none of theirs), or the keys' and the values' apart.
void plan_scatter(SortPlan& p, ElementType key_type, bool with_values, const DeviceFit& fit) {
  const SortShape shape = p.shape;
  const std::string type = std::string(to_string(key_type)), name = shape_name(shape);
  p.up = {fmt::format("sort_up {} {}", type, name), [=] {
            return shape.serial ? sort_serial_source(key_type, false, true, shape)
                                : sort_upsweep_source(key_type, shape);
          }};
  const bool split = with_values && !fits_storage(fit, shape.serial && shape.texels ? 3 : 5, 5);
  const bool keys_values = with_values && !split;
  p.down = {fmt::format("sort_down {} {} {}", type, keys_values, name), [=] {
              return shape.serial ? sort_serial_source(key_type, keys_values, false, shape)
                                  : sort_downsweep_source(key_type, keys_values, shape);
            }};
  if (!split) return;
  p.down_values = {fmt::format("sort_down_values {} {}", type, name), [=] {
                     return shape.serial ? sort_serial_source(key_type, true, false, shape, true)
                                         : sort_downsweep_source(key_type, true, shape, true);
                   }};
}

}  // namespace

std::vector<KernelSpec> SortPlan::kernels() const {
  std::vector<KernelSpec> all;
  for (const KernelSpec* k : {&up, &down, &down_values, &histogram, &pass, &clear}) {
    if (!k->key.empty()) all.push_back(*k);
  }
  return all;
}

SortPlan plan_sort(const DeviceInfo& info, const PrimitiveTuning& t, ElementType key_type,
                   bool with_values, std::size_t count) {
  const DeviceFit fit = device_fit(info);
  SortPlan p;
  p.sg = subgroups_for(info, t.subgroups);
  if (p.sg.on) {
    p.shape = onesweep_shape(t, p.sg);
    if (onesweep_fits(fit, p, t, with_values, count)) {
      p.onesweep = true;
      plan_onesweep(p, info, key_type, with_values, fit);
      return p;
    }
  }
  p.shape = sort_shape(t);
  p.shape.texels = p.shape.texels && texel_loads_possible(fit, count);
  plan_scatter(p, key_type, with_values, fit);
  return p;
}

std::vector<KernelSpec> sort_kernels(const DeviceInfo& info, const PrimitiveTuning& t,
                                     ElementType key_type, bool with_values, std::size_t count) {
  return plan_sort(info, t, key_type, with_values, count).kernels();
}

}  // namespace gpgpu::primitives
