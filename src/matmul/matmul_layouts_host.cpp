// Packing and gathering on the host, for devices without compute shaders (WebGL2): the same
// layouts as matmul_layouts.cpp's dispatches, written with loops. Only host arrays go this
// way; a Buffer would have to visit the host, which gpgpu never does silently.
#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "matmul/matmul_layouts.hpp"

namespace gpgpu::detail {

namespace {

void require_host_array(const Arg& arg, const char* what) {
  if (arg.kind() == Arg::Kind::HostArray) return;
  throw UnsupportedError(fmt::format(
      "matmul: {} is {}; without compute shaders (WebGL2) the transform-feedback and fragment "
      "methods pack and gather matrices on the host, so they take host arrays, not Buffers",
      what, arg.describe()));
}

}  // namespace

void pack_on_host(const Arg& matrix, Texture& texture, TextureLayout layout, int rows, int cols) {
  require_host_array(matrix, "an operand");
  const auto* m = static_cast<const float*>(matrix.data());
  auto entry = [&](std::size_t row, std::size_t col) {
    return row < size(rows) && col < size(cols) ? m[row * size(cols) + col] : 0.0f;
  };
  const std::size_t tex_cols = texture.cols(), tex_rows = texture.rows();
  const std::size_t per_texel = layout == TextureLayout::Scalar ? 1 : 4;
  std::vector<float> texels(tex_rows * tex_cols * per_texel);
  for (std::size_t y = 0; y < tex_rows; ++y) {
    for (std::size_t x = 0; x < tex_cols; ++x) {
      float* t = texels.data() + (y * tex_cols + x) * per_texel;
      for (std::size_t i = 0; i < per_texel; ++i) {
        t[i] = layout == TextureLayout::Scalar    ? entry(y, x)
               : layout == TextureLayout::RowVec4 ? entry(y, 4 * x + i)
                                                  : entry(4 * x + i, y);  // TransposedVec4
      }
    }
  }
  texture.upload(std::span<const float>(texels));
}

void gather_on_host(ProductLayout layout, const Buffer* const* sources,
                    const Texture* const* textures, const Arg& c, int m, int n, int stride) {
  require_host_array(c, "C");
  auto* out = static_cast<float*>(c.writable_data());
  const std::size_t rows = size(m), cols = size(n);
  // The product as laid out on the device, then each C[row][col] picked from it.
  std::vector<std::vector<float>> parts;
  const bool blocks =
      layout == ProductLayout::RowBlockBuffers || layout == ProductLayout::RowBlockTextures;
  for (int i = 0; i < (blocks ? 4 : 1); ++i) {
    parts.push_back(textures != nullptr ? textures[i]->to_vector<float>()
                                        : sources[i]->to_vector<float>());
  }
  const auto s = size(stride);
  for (std::size_t row = 0; row < rows; ++row) {
    for (std::size_t col = 0; col < cols; ++col) {
      float value = 0;
      switch (layout) {
        case ProductLayout::PaddedRows:
          value = parts[0][row * s + col];
          break;
        case ProductLayout::ScalarTexture:
          value = parts[0][row * cols + col];
          break;
        case ProductLayout::RowBlockBuffers:  // vec4 (row/4, col/4) of part row%4, rows of s
          value = parts[row % 4][((row / 4) * s + col / 4) * 4 + col % 4];
          break;
        case ProductLayout::RowBlockTextures:  // texel (col/4, row/4) of texture row%4
          value = parts[row % 4][((row / 4) * textures[0]->cols() + col / 4) * 4 + col % 4];
          break;
      }
      out[row * cols + col] = value;
    }
  }
}

}  // namespace gpgpu::detail
