// gpgpu/texture.hpp — 2-D and 3-D textures: inputs for samplers, images and render targets.
//
//   std::vector<float> a = ...;                            // 2 rows of 8, row-major
//   auto ta = gpgpu::Texture::from(ctx, gpgpu::TexelType::Float, {2, 8}, a);
//   kernel.run({{"A", ta}, ...});                          // uniform sampler2D A;
//   // in GLSL: texelFetch(A, ivec2(col, row), 0).r       // x is the column, y the row
//
// Host data is row-major: shape {rows, cols} or {depth, rows, cols}, the last index
// fastest, and each texel's components together (a vec4 texture of 2x3 takes 24 floats).
// Row r of the host data is texture row y = r, so texelFetch(t, ivec2(col, row), 0) reads
// host element [row][col]; 3-D textures read [layer][row][col] at ivec3(col, row, layer).
// Textures hold exact 32-bit values: NEAREST filtering, no mipmaps, immutable storage
// (glTexStorage*), so every texture also binds to an image2D/image3D and to a framebuffer.
//
// 1-D arrays. A texture is at most info().max_texture_size wide, so an array of n texels
// is stored as rows of W = min(n, max_width) texels: ceil(n / W) rows, the last one padded
// with zeros. Element i sits at (x, y) = (i % W, i / W); kernels read it with
// gpgpu_fetch(tex, i) (see transform_feedback_kernel.hpp and fragment_kernel.hpp), which
// takes W from textureSize. length() is n; upload and download move n texels.
//
// Uploads and downloads go through the Context's transfer engine (data_path.hpp): staged
// into a pixel-unpack buffer on the way in, read into a pixel-pack buffer on the way out.
// Reading back: download() reads formats the device can render to with glReadPixels from
// a framebuffer (R32F, RG32F, RGBA32F where GL_EXT_color_buffer_float exists; the integer
// formats everywhere), 3-D textures one layer at a time. RGB32F is never colour-renderable
// in OpenGL ES, and float formats are not without the extension: those are copied out by a
// small compute shader (texelFetch into a storage buffer) instead. Either way the values
// come back bit-exact.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gpgpu/detail/gl_name.hpp"
#include "gpgpu/element_type.hpp"
#include "gpgpu/pending_run.hpp"
#include "gpgpu/texel_type.hpp"

namespace gpgpu {

class Buffer;
class Context;

// A 2-D or 3-D texture of float, int or uint texels (1, 2 or 4 components), or a 1-D array
// wrapped into rows: sampled by kernels, written as an image or a fragment kernel's output
// (the manual at the top of this header). Move-only.
class Texture {
 public:
  Texture() = default;  // holds nothing; binding it is an error
  // An uninitialised texture of shape {rows, cols} or {depth, rows, cols}. Throws
  // ArgumentError for another rank or a zero extent, LimitError beyond the device's
  // GL_MAX_TEXTURE_SIZE (2-D) or GL_MAX_3D_TEXTURE_SIZE (3-D).
  Texture(const Context& context, TexelType type, const std::vector<std::size_t>& shape);
  ~Texture();
  // @{
  // Moves the texture; Args bound to `other` follow it to this Texture.
  Texture(Texture&& other) noexcept;
  Texture& operator=(Texture&& other) noexcept;
  // @}
  Texture(const Texture&) = delete;
  Texture& operator=(const Texture&) = delete;

  // @{
  // A texture of `shape` filled from row-major host data (shape's product x components
  // values; T must be the texel's element type).
  template <class T>
  static Texture from(const Context& context, TexelType type, const std::vector<std::size_t>& shape,
                      std::span<const T> data) {
    Texture t(context, type, shape);
    t.upload(data);
    return t;
  }
  template <class T>
  static Texture from(const Context& context, TexelType type, const std::vector<std::size_t>& shape,
                      const std::vector<T>& data) {
    return from(context, type, shape, std::span<const T>(data));
  }
  // @}

  // An uninitialised 1-D array of `length` texels wrapped into rows of
  // W = min(length, max_width) texels; max_width 0 means the device's maximum texture
  // width. Throws LimitError when even rows of the maximum width cannot hold it.
  static Texture array(const Context& context, TexelType type, std::size_t length,
                       std::size_t max_width = 0);
  // @{
  // The same, filled from `data` (length = data.size() / components).
  template <class T>
  static Texture from_array(const Context& context, TexelType type, std::span<const T> data,
                            std::size_t max_width = 0) {
    Texture t = array(context, type, texels_in(type, data.size()), max_width);
    t.upload(data);
    return t;
  }
  template <class T>
  static Texture from_array(const Context& context, TexelType type, const std::vector<T>& data,
                            std::size_t max_width = 0) {
    return from_array(context, type, std::span<const T>(data), max_width);
  }
  // @}

  // @{
  // Replaces the whole contents: value_count() values of the texel's element type.
  template <class T>
  void upload(std::span<const T> data) {
    upload_values(element_type_of<T>(), data.data(), data.size());
  }
  template <class T>
  void upload(const std::vector<T>& data) {
    upload(std::span<const T>(data));
  }
  // @}
  // Copies the whole contents into `out` (value_count() values). Waits for the GPU.
  template <class T>
  void download(std::span<T> out) const {
    download_values(element_type_of<T>(), out.data(), out.size());
  }
  // Starts copying the contents into `out` and returns at once; `out` is filled by the
  // handle's wait() (keep it alive and untouched until then).
  template <class T>
  PendingRun download_async(std::span<T> out) const {
    return download_values_async(element_type_of<T>(), out.data(), out.size());
  }
  // The whole contents, downloaded into a new vector. Waits for the GPU.
  template <class T>
  std::vector<T> to_vector() const {
    std::vector<T> out(value_count());
    download(std::span<T>(out));
    return out;
  }

  TexelType texel_type() const noexcept { return type_; }          // element type and components
  int dimensions() const noexcept { return depth_ > 0 ? 3 : 2; }  // 2 or 3
  std::vector<std::size_t> shape() const;  // {rows, cols} or {depth, rows, cols}
  std::size_t rows() const noexcept { return rows_; }  // texels along y
  std::size_t cols() const noexcept { return cols_; }  // texels along x
  std::size_t depth() const noexcept { return depth_ > 0 ? depth_ : 1; }  // 1 for 2-D
  // Texels that hold data: rows x cols (x depth), or n for a 1-D array.
  std::size_t length() const noexcept { return length_; }
  // Host values upload() and download() move: length() x components.
  std::size_t value_count() const noexcept {
    return length_ * static_cast<std::size_t>(components(type_));
  }
  bool is_array() const noexcept { return is_array_; }  // a wrapped 1-D array
  bool valid() const noexcept { return name_.id() != 0; }  // holds a GL texture
  unsigned gl_name() const noexcept { return name_.id(); }  // for interoperation with raw GL
  // Whether the texture was made from `context` (and is not released).
  bool belongs_to(const Context& context) const noexcept;
  // For the library's own use (prefer belongs_to); not part of the manual.
  const std::shared_ptr<detail::ContextState>& context_state() const { return name_.owner(); }
  // "a 2-D float texture of 2 x 8", for messages.
  std::string describe() const;

  // Copies every element of `source` into the texture's texels from texel `first_texel` on
  // (row-major, as Texture::array lays out 1-D arrays), on the GPU: no host round trip.
  // 2-D textures; the Buffer's element type must be the texels' and hold whole texels.
  void copy_from(const Buffer& source, std::size_t first_texel = 0);

  // Frees the device memory now.
  void release() noexcept;

  // For Arg: where this object lives, updated when it is moved and set to null when it is
  // destroyed, so that an Arg kept longer than the object cannot dangle.
  std::shared_ptr<const Texture* const> self_reference() const;

 private:
  static std::size_t texels_in(TexelType type, std::size_t values);
  void upload_values(ElementType type, const void* data, std::size_t count);
  void download_values(ElementType type, void* out, std::size_t count) const;
  PendingRun download_values_async(ElementType type, void* out, std::size_t count) const;

  // Follows this object; see self_reference().
  void follow_self() noexcept;

  mutable std::shared_ptr<const Texture*> self_;
  detail::GlName<detail::GlKind::Texture> name_;
  TexelType type_ = TexelType::Float;
  std::size_t depth_ = 0;  // 0 for a 2-D texture
  std::size_t rows_ = 0;
  std::size_t cols_ = 0;
  std::size_t length_ = 0;
  bool is_array_ = false;
};

}  // namespace gpgpu
