// Internal: which memory barriers a recorded sequence needs, from what each dispatch reads
// and writes (a pure function: no GL call, so tests check its decisions directly).
//
// GL makes a shader's writes (storage buffers, images) visible to later commands only across
// glMemoryBarrier with the bit of how those commands access the memory, and orders the
// memory accesses of two commands only across a barrier. So dispatch i gets a barrier when it
//   reads or writes a resource an earlier dispatch wrote, unless a barrier with the bit of
//   i's access path came between (read after write, write after write), or
//   writes a resource an earlier dispatch read, unless such a barrier came between (write
//   after read);
// with the bit of i's access path: SHADER_STORAGE for storage blocks, SHADER_IMAGE_ACCESS for
// images, TEXTURE_FETCH for samplers (buffer textures included). After the last dispatch
// comes GL_ALL_BARRIER_BITS, as after every ComputeKernel run: the sequence's writes are then
// visible to whatever follows (runs, transfers, draws).
#pragma once

#include <cstdint>
#include <vector>

namespace gpgpu::detail {

// How a dispatch reaches a resource.
enum class AccessPath { StorageBlock, Image, TextureFetch };

struct ResourceAccess {
  bool texture = false;  // a texture (images, samplers) or a buffer (GL names differ)
  unsigned name = 0;     // its GL name
  AccessPath path = AccessPath::StorageBlock;
  bool reads = false;
  bool writes = false;
};

struct BarrierPlan {
  std::vector<std::uint32_t> before;  // bits before each dispatch (0: none)
  std::uint32_t after_last = 0;       // bits after the last dispatch
};

BarrierPlan plan_barriers(const std::vector<std::vector<ResourceAccess>>& dispatches);

// The GL bit of an access path.
std::uint32_t barrier_bit(AccessPath path);

// For the test that shows a dropped barrier is caught (a mutation of the tracker): while
// false, plan_barriers plans no barrier at all. True by default.
void set_barrier_tracking_for_tests(bool enabled);

}  // namespace gpgpu::detail
