// Internal: how a compute shader declares access to its storage blocks and images — the
// memory qualifiers `readonly` and `writeonly`, which program introspection does not report
// (GL_BUFFER_VARIABLE and GL_UNIFORM have no such property), read from the source:
//   layout(std430, binding = 0) readonly buffer A { float a[]; };    // read only
//   layout(std430, binding = 1) writeonly buffer C { float c[]; };   // written only
//   layout(binding = 0, r32f) uniform writeonly highp image2D img;   // written only
// A block or image the text does not show plainly (its name spelled by a macro) counts as
// read and written, which is always safe for the hazard tracking that uses this
// (src/sequence/).
#pragma once

#include <string_view>

#include "shader/program_interface.hpp"

namespace gpgpu::detail {

// Sets `access` of every storage block and image uniform of `interface` from `source`.
// Never throws: what it cannot read counts as read and written.
void read_declared_access(std::string_view source, ProgramInterface& interface);

}  // namespace gpgpu::detail
