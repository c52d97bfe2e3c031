// Internal: moving matrices between the row-major float arrays matmul takes (Buffers or
// host arrays) and the texture and padded layouts the transform-feedback and fragment
// methods read and write. Each is one small compute dispatch, so Buffer operands never
// visit the host. Without compute shaders (WebGL2) host arrays are packed and gathered on
// the host instead (matmul_layouts_host.cpp) and Buffers are refused.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>

#include "gpgpu/arg.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/texture.hpp"
#include "matmul/matmul_backend.hpp"

namespace gpgpu::detail {

// Texels of 4 floats needed for x floats.
inline int ceil4(int x) {
  return (x + 3) / 4;
}
// A matrix extent as a texture or buffer size.
inline std::size_t size(int x) {
  return static_cast<std::size_t>(x);
}

// How a rows x cols row-major matrix is laid into a texture.
enum class TextureLayout {
  Scalar,          // R32F, rows x cols: texel (x, y) = M[y][x]
  RowVec4,         // RGBA32F, tex_rows x ceil(cols / 4): texel (x, y) = M[y][4x .. 4x+3]
  TransposedVec4,  // RGBA32F, cols x ceil(rows / 4): texel (x, y) = M[4x .. 4x+3][y]
};

// Writes a matrix (Buffer or host array) into a texture; entries past the matrix (the
// padding of the last vec4, rows past `rows`) become zeros, so kernels may read them.
class TexturePacker {
 public:
  TexturePacker(const Context& context, TextureLayout layout);
  void run(const Arg& matrix, Texture& texture, int rows, int cols);
  void set_timing(bool enabled) {
    if (kernel_) kernel_->set_timing(enabled);
  }
  double last_gpu_ns() const { return kernel_ ? kernel_->last_gpu_ns() : -1; }

 private:
  TextureLayout layout_;
  std::optional<ComputeKernel> kernel_;  // none without compute shaders
};

// A and B as the 4x4-block kernels (matmul_blocked_body_glsl) read them: A with 4
// consecutive k per RGBA texel, B with 4 consecutive columns per texel, both zero-padded to
// whole 4x4 blocks. Shared by TransformFeedbackBlocked and FragmentPacked.
struct BlockedOperands {
  BlockedOperands(const Context& context, MatmulShape shape);
  // Packs a and b into the textures; returns the GPU ns of both passes, or -1 if unknown.
  double pack(const Arg& a_matrix, const Arg& b_matrix);
  void set_timing(bool enabled) { packer.set_timing(enabled); }

  MatmulShape shape;
  int m4, k4, n4;
  TexturePacker packer;
  Texture a, b;
};

// Where a product lies before it is gathered into row-major C (m x n).
enum class ProductLayout {
  PaddedRows,        // one float Buffer with rows of `stride` >= n floats
  RowBlockBuffers,   // 4 vec4 Buffers of ceil(m/4) x ceil(n/4) vec4s: Buffer r, vec4
                     // y * stride + x holds C[4y + r][4x .. 4x+3]
  ScalarTexture,     // one R32F texture of m x n
  RowBlockTextures,  // 4 RGBA32F textures of ceil(m/4) x ceil(n/4): texture r, texel (x, y)
                     // holds C[4y + r][4x .. 4x+3]
};

// Gathers a product into C (a Buffer or a host array written back).
class ProductGatherer {
 public:
  // `product_elements`: m x n of the products it gathers, for RowBlockBuffers (its passes may
  // need a Buffer of that size).
  ProductGatherer(const Context& context, ProductLayout layout, std::size_t product_elements = 0);
  // PaddedRows: sources[0] with rows of `stride` floats. RowBlockBuffers: sources[0..3] with
  // rows of `stride` vec4s.
  void run(const Buffer* const* sources, const Arg& c, int m, int n, int stride);
  // ScalarTexture: textures[0]. RowBlockTextures: textures[0..3].
  void run(const Texture* const* textures, const Arg& c, int m, int n);
  void set_timing(bool enabled) {
    if (kernel_) kernel_->set_timing(enabled);
  }
  double last_gpu_ns() const { return kernel_ ? kernel_->last_gpu_ns() : -1; }

 private:
  void run_a_source_a_pass(const Buffer* const* sources, const Arg& c, int m, int n, int stride);

  ProductLayout layout_;
  std::optional<ComputeKernel> kernel_;  // none without compute shaders
  // RowBlockBuffers on a device that binds fewer than 5 storage buffers (OpenGL ES 3.1's
  // minimum is 4): one pass per row of the 4-row blocks, each binding one source.
  bool one_source_a_pass_ = false;
  std::optional<Buffer> staged_;  // the passes' product, for a host array C
};

// The host's side of packing and gathering, for devices without compute shaders: a host
// array `matrix` written into `texture` in `layout`; host array `c` filled from the product
// in `layout` (sources: Buffers, or textures when `textures` is not null).
void pack_on_host(const Arg& matrix, Texture& texture, TextureLayout layout, int rows, int cols);
void gather_on_host(ProductLayout layout, const Buffer* const* sources,
                    const Texture* const* textures, const Arg& c, int m, int n, int stride);

// Sums GPU times that are all known; -1 as soon as one is not.
double sum_gpu_ns(std::initializer_list<double> times);

}  // namespace gpgpu::detail
