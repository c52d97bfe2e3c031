// Internal: a shader's `out` declarations, read from its source. OpenGL ES 3.0 (WebGL2) has
// no query for a program's outputs by name (GL_PROGRAM_OUTPUT is OpenGL ES 3.1), so there
// gpgpu reads them from the text: global declarations such as
//   out float C;   flat out int i, j;   layout(location = 1) out highp vec4 D[2];
// Comments and the lines the preprocessor's conditionals leave out are skipped; macros are
// not expanded (a type or a name spelled by a macro is not recognised: declare outputs
// plainly).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpgpu::detail {

struct DeclaredOutput {
  std::string type;    // "vec4"
  std::string name;    // "D"
  int array_size = 1;  // 2 for D[2]
};

std::vector<DeclaredOutput> declared_outputs(std::string_view source);

}  // namespace gpgpu::detail
