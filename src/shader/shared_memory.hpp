// Internal: how much shared memory a compute shader declares, read from its source. GL has
// no query for it, and a device-limit profile (gpgpu/limits.hpp) must refuse a kernel over
// its shared-memory limit as a smaller device's compiler would.
#pragma once

#include <optional>
#include <string_view>

namespace gpgpu::detail {

// The bytes of every `shared` variable of the (complete) source: scalars, vectors, matrices
// and structs the source declares, in arrays whose extents are integer constant expressions
// of #defines and `const int|uint` globals; vec3 elements count 16 bytes, as std430 arrays
// lay them out. nullopt when a declaration is beyond that (the driver then decides alone).
std::optional<long long> shared_memory_bytes(std::string_view source);

}  // namespace gpgpu::detail
