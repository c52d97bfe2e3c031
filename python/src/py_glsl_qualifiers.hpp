// Which storage blocks a compute shader declares `readonly`, read from its source.
//
// GL's program introspection does not report memory qualifiers, yet they decide whether a
// writable NumPy array bound to a block must be read back after a run: a block the shader
// cannot write never changes, so copying it back only costs time (it doubles the transfers
// of a SAXPY). A name is reported only when every declaration of that block in the source
// says readonly (on the block or on its single member), so a miss costs a read-back and
// never a wrong result.
#pragma once

#include <set>
#include <string>
#include <string_view>

namespace gpgpu::python {

// Block names and member names of the readonly storage blocks of `source`.
std::set<std::string> readonly_storage_blocks(std::string_view source);

}  // namespace gpgpu::python
