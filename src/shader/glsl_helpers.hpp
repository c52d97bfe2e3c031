// Internal: GLSL helpers added to transform-feedback and fragment kernels.
#pragma once

#include <string_view>

namespace gpgpu::detail {

// gpgpu_fetch(t, i): element i of a 1-D array that Texture::array stored as rows of
// W = textureSize(t, 0).x texels, at (x, y) = (i % W, i / W).
constexpr std::string_view array_fetch_glsl =
    "vec4 gpgpu_fetch(highp sampler2D t, int i) {\n"
    "  int w = textureSize(t, 0).x;\n"
    "  return texelFetch(t, ivec2(i % w, i / w), 0);\n"
    "}\n"
    "ivec4 gpgpu_fetch(highp isampler2D t, int i) {\n"
    "  int w = textureSize(t, 0).x;\n"
    "  return texelFetch(t, ivec2(i % w, i / w), 0);\n"
    "}\n"
    "uvec4 gpgpu_fetch(highp usampler2D t, int i) {\n"
    "  int w = textureSize(t, 0).x;\n"
    "  return texelFetch(t, ivec2(i % w, i / w), 0);\n"
    "}\n";

}  // namespace gpgpu::detail
