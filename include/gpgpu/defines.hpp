// gpgpu/defines.hpp — preprocessor definitions prepended to a kernel's GLSL source.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gpgpu {

// {{"TILE", "16"}, {"USE_FMA", ""}} becomes "#define TILE 16" and "#define USE_FMA".
// Kernels with different defines are different programs in the cache.
using Defines = std::vector<std::pair<std::string, std::string>>;

}  // namespace gpgpu
