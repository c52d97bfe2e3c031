#include "sequence/hazards.hpp"

#include <atomic>
#include <map>
#include <utility>

#include "gl/gl.hpp"
#include "gpgpu/sequence.hpp"

namespace gpgpu::detail {

namespace {

static_assert(barrier_bits::texture_fetch == GL_TEXTURE_FETCH_BARRIER_BIT);
static_assert(barrier_bits::shader_image_access == GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
static_assert(barrier_bits::shader_storage == GL_SHADER_STORAGE_BARRIER_BIT);
static_assert(barrier_bits::all == GL_ALL_BARRIER_BITS);

std::atomic<bool> tracking{true};

// What the dispatches so far left on one resource.
struct ResourceState {
  bool written = false;             // written since...
  std::uint32_t write_covered = 0;  // ...and the barrier bits issued after that write
  bool read = false;                // read since...
  std::uint32_t read_covered = 0;   // ...and the bits issued after that read
};

using Key = std::pair<bool, unsigned>;

// The bits dispatch `accesses` needs before it, given the state the earlier ones left.
std::uint32_t needed_bits(const std::vector<ResourceAccess>& accesses,
                          const std::map<Key, ResourceState>& state) {
  std::uint32_t bits = 0;
  for (const auto& a : accesses) {
    const auto it = state.find({a.texture, a.name});
    if (it == state.end()) continue;
    const ResourceState& r = it->second;
    const std::uint32_t bit = barrier_bit(a.path);
    const bool after_write = r.written && (r.write_covered & bit) == 0 && (a.reads || a.writes);
    const bool after_read = a.writes && r.read && (r.read_covered & bit) == 0;
    if (after_write || after_read) bits |= bit;
  }
  return bits;
}

}  // namespace

std::uint32_t barrier_bit(AccessPath path) {
  switch (path) {
    case AccessPath::StorageBlock:
      return GL_SHADER_STORAGE_BARRIER_BIT;
    case AccessPath::Image:
      return GL_SHADER_IMAGE_ACCESS_BARRIER_BIT;
    case AccessPath::TextureFetch:
      return GL_TEXTURE_FETCH_BARRIER_BIT;
  }
  return GL_ALL_BARRIER_BITS;
}

BarrierPlan plan_barriers(const std::vector<std::vector<ResourceAccess>>& dispatches) {
  BarrierPlan plan;
  plan.before.assign(dispatches.size(), 0);
  if (!tracking || dispatches.empty()) return plan;
  std::map<Key, ResourceState> state;
  for (std::size_t i = 0; i < dispatches.size(); ++i) {
    const std::uint32_t bits = needed_bits(dispatches[i], state);
    plan.before[i] = bits;
    if (bits != 0) {
      for (auto& [key, r] : state) {
        r.write_covered |= bits;
        r.read_covered |= bits;
      }
    }
    for (const auto& a : dispatches[i]) {
      ResourceState& r = state[{a.texture, a.name}];
      if (a.writes) {
        r.written = true;
        r.write_covered = 0;
      }
      if (a.reads) {
        r.read = true;
        r.read_covered = 0;
      }
    }
  }
  plan.after_last = GL_ALL_BARRIER_BITS;
  return plan;
}

void set_barrier_tracking_for_tests(bool enabled) {
  tracking = enabled;
}

}  // namespace gpgpu::detail
