// Internal: argument checks shared by the primitives. Each throws a gpgpu::Error subclass
// naming the function, the argument, what was expected and what was given.
#pragma once

#include <cstddef>
#include <string>

#include "gpgpu/buffer.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/primitives.hpp"

namespace gpgpu::primitives {

// The scalars a primitive reads: [first, first + count) of the Buffer.
struct ScalarRange {
  std::size_t first = 0;     // scalar index
  std::size_t count = 0;     // scalars
  std::size_t elements = 0;  // count / components
};

// `buffer` is valid and made from `ctx`.
void check_buffer(const Context& ctx, const Buffer& buffer, const char* function, const char* name);
// `buffer` holds `expected` elements.
void check_type(const Buffer& buffer, ElementType expected, const char* function, const char* name);
// components is 1..4.
void check_components(int components, const char* function);
// Resolves `range` (in elements of `components` scalars) against `buffer`.
ScalarRange resolve_range(const Buffer& buffer, Range range, int components, const char* function,
                          const char* name);
// `buffer` has room for `count` scalars from `offset`.
void check_room(const Buffer& buffer, std::size_t offset, std::size_t count, const char* function,
                const char* name);
// The result must fit a 32-bit index or count on the device.
void check_index_range(std::size_t end, const char* function, const char* name);

}  // namespace gpgpu::primitives
