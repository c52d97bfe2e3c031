#include "gpgpu/texture.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "gl/context_state.hpp"
#include "gpgpu/buffer.hpp"
#include "gl/gl_name.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"
#include "resources/texel_format.hpp"
#include "resources/texture_readback.hpp"
#include "transfer/run_transfers.hpp"

namespace gpgpu {

namespace {

void set_unpack_state() {
  GL(glPixelStorei(GL_UNPACK_ALIGNMENT, 4));  // every texel is a whole number of 4-byte values
  GL(glPixelStorei(GL_UNPACK_ROW_LENGTH, 0));
  GL(glPixelStorei(GL_UNPACK_IMAGE_HEIGHT, 0));
  GL(glPixelStorei(GL_UNPACK_SKIP_ROWS, 0));
  GL(glPixelStorei(GL_UNPACK_SKIP_PIXELS, 0));
  GL(glPixelStorei(GL_UNPACK_SKIP_IMAGES, 0));
}

std::string shape_text(const std::vector<std::size_t>& shape) {
  return fmt::format("{}", fmt::join(shape, " x "));
}

}  // namespace

Texture::Texture(const Context& context, TexelType type, const std::vector<std::size_t>& shape)
    : type_(type) {
  if (shape.size() != 2 && shape.size() != 3) {
    throw ArgumentError(fmt::format(
        "a Texture's shape is {{rows, cols}} or {{depth, rows, cols}}; {} extents were given",
        shape.size()));
  }
  if (std::find(shape.begin(), shape.end(), std::size_t{0}) != shape.end()) {
    throw ArgumentError(fmt::format(
        "a Texture of shape {} is empty; every extent must be at least 1", shape_text(shape)));
  }
  auto& state = *context.state();
  const auto& info = state.info;
  const bool is_3d = shape.size() == 3;
  const auto limit =
      static_cast<std::size_t>(is_3d ? info.max_3d_texture_size : info.max_texture_size);
  if (*std::max_element(shape.begin(), shape.end()) > limit) {
    throw LimitError(fmt::format(
        "a {} texture of {} exceeds the device's maximum of {} texels per side ({}); store a long "
        "1-D array with Texture::array (rows of at most {} texels) or split the data",
        is_3d ? "3-D" : "2-D", shape_text(shape), limit,
        is_3d ? "GL_MAX_3D_TEXTURE_SIZE" : "GL_MAX_TEXTURE_SIZE", info.max_texture_size));
  }
  depth_ = is_3d ? shape[0] : 0;
  rows_ = shape[shape.size() - 2];
  cols_ = shape[shape.size() - 1];
  length_ = depth() * rows_ * cols_;

  state.ensure_current();
  const auto& format = detail::texel_format(type);
  const GLenum target = is_3d ? GL_TEXTURE_3D : GL_TEXTURE_2D;
  auto texture = detail::make_gl_name<detail::GlKind::Texture>(state);
  GL(glBindTexture(target, texture.id()));
  if (is_3d) {
    GL(glTexStorage3D(target, 1, format.internal_format, static_cast<GLsizei>(cols_),
                      static_cast<GLsizei>(rows_), static_cast<GLsizei>(depth_)));
  } else {
    GL(glTexStorage2D(target, 1, format.internal_format, static_cast<GLsizei>(cols_),
                      static_cast<GLsizei>(rows_)));
  }
  // Exact values: no filtering between texels, no mipmaps, no wrapping around.
  GL(glTexParameteri(target, GL_TEXTURE_MIN_FILTER, GL_NEAREST));
  GL(glTexParameteri(target, GL_TEXTURE_MAG_FILTER, GL_NEAREST));
  GL(glTexParameteri(target, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE));
  GL(glTexParameteri(target, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE));
  if (is_3d) GL(glTexParameteri(target, GL_TEXTURE_WRAP_R, GL_CLAMP_TO_EDGE));
  GL(glBindTexture(target, 0));
  name_ = std::move(texture);
}

Texture Texture::array(const Context& context, TexelType type, std::size_t length,
                       std::size_t max_width) {
  if (length == 0) throw ArgumentError("a Texture array needs at least one texel");
  const auto limit = static_cast<std::size_t>(context.info().max_texture_size);
  const std::size_t width = std::min({length, limit, max_width == 0 ? limit : max_width});
  const std::size_t rows = (length + width - 1) / width;
  if (rows > limit) {
    throw LimitError(fmt::format(
        "an array of {} {} texels needs {} rows of {}, but the device's textures have at most "
        "{} rows (GL_MAX_TEXTURE_SIZE), so one texture holds at most {} texels; split the array",
        length, to_string(type), rows, width, limit, width * limit));
  }
  Texture t(context, type, {rows, width});
  t.length_ = length;
  t.is_array_ = true;
  return t;
}

std::size_t Texture::texels_in(TexelType type, std::size_t values) {
  const auto n = static_cast<std::size_t>(components(type));
  if (values % n != 0) {
    throw SizeMismatchError(fmt::format(
        "an array of {} texels takes {} values per texel, but {} values were given, which is not "
        "a multiple of {}",
        to_string(type), n, values, n));
  }
  return values / n;
}

Texture::~Texture() {
  release();
  if (self_) *self_ = nullptr;  // Args kept longer now see a destroyed texture
}

std::shared_ptr<const Texture* const> Texture::self_reference() const {
  if (!self_) self_ = std::make_shared<const Texture*>(this);
  return self_;
}

void Texture::follow_self() noexcept {
  if (self_) *self_ = this;
}

Texture::Texture(Texture&& other) noexcept
    : self_(std::move(other.self_)),
      name_(std::move(other.name_)),
      type_(other.type_),
      depth_(other.depth_),
      rows_(other.rows_),
      cols_(other.cols_),
      length_(other.length_),
      is_array_(other.is_array_) {
  other.length_ = 0;
  follow_self();
}

Texture& Texture::operator=(Texture&& other) noexcept {
  if (this != &other) {
    release();
    if (self_) *self_ = nullptr;  // the texture Args were made from is gone
    self_ = std::move(other.self_);
    follow_self();
    name_ = std::move(other.name_);
    type_ = other.type_;
    depth_ = other.depth_;
    rows_ = other.rows_;
    cols_ = other.cols_;
    length_ = other.length_;
    is_array_ = other.is_array_;
    other.length_ = 0;
  }
  return *this;
}

void Texture::release() noexcept {
  name_.reset();
  length_ = 0;
}

bool Texture::belongs_to(const Context& context) const noexcept {
  return valid() && name_.owner() == context.state();
}

std::vector<std::size_t> Texture::shape() const {
  if (depth_ > 0) return {depth_, rows_, cols_};
  return {rows_, cols_};
}

std::string Texture::describe() const {
  if (!valid()) return "an empty (or released) Texture";
  if (is_array_) {
    return fmt::format("a {} texture array of {} (stored as {} x {})", to_string(type_), length_,
                       rows_, cols_);
  }
  return fmt::format("a {}-D {} texture of {}", dimensions(), to_string(type_),
                     shape_text(shape()));
}

namespace {
void check_values(const char* what, const Texture& t, ElementType host, std::size_t count) {
  if (!t.valid()) throw Error(fmt::format("Texture::{} on an empty or released texture", what));
  if (element_type(t.texel_type()) != host) {
    throw TypeMismatchError(fmt::format("Texture::{}: {} holds {} values but the host array is {}",
                                        what, t.describe(), to_string(element_type(t.texel_type())),
                                        to_string(host)));
  }
  if (count != t.value_count()) {
    throw SizeMismatchError(fmt::format(
        "Texture::{}: {} takes exactly {} values ({} texels of {} each), but the host array has {}",
        what, t.describe(), t.value_count(), t.length(), components(t.texel_type()), count));
  }
}
}  // namespace

void Texture::upload_values(ElementType type, const void* data, std::size_t count) {
  check_values("upload", *this, type, count);
  auto& state = *name_.owner();
  state.ensure_current();
  state.refuse_while_capturing("Texture::upload");
  const auto& format = detail::texel_format(type_);
  const std::size_t texel_bytes = static_cast<std::size_t>(components(type_)) * element_size;
  // Through the engine into a pooled pixel-unpack buffer, so that large textures are staged
  // like any other host array; on CPU devices straight from the host array (one copy).
  detail::RunTransfers io(state);
  const bool staged = state.engine().options().staging != StagingMode::Direct;
  GLuint unpack = 0;
  if (staged) {
    unpack = io.temporary(count * element_size);
    io.upload(unpack, data, count * element_size);
  }
  // Byte `offset` of the data: an offset into the unpack buffer, or a host pointer.
  const auto at = [&](std::size_t offset) -> const void* {
    if (staged) return reinterpret_cast<const void*>(static_cast<std::uintptr_t>(offset));
    return static_cast<const unsigned char*>(data) + offset;
  };
  set_unpack_state();
  GL(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, unpack));
  const GLenum target = depth_ > 0 ? GL_TEXTURE_3D : GL_TEXTURE_2D;
  GL(glBindTexture(target, name_.id()));
  if (depth_ > 0) {
    GL(glTexSubImage3D(GL_TEXTURE_3D, 0, 0, 0, 0, static_cast<GLsizei>(cols_),
                       static_cast<GLsizei>(rows_), static_cast<GLsizei>(depth_),
                       format.upload_format, format.gl_type, at(0)));
  } else {
    // A 1-D array fills whole rows, then part of the last one; the rest of that row is
    // zeroed so that no texel of the texture is left undefined.
    const std::size_t full_rows = length_ / cols_;
    const std::size_t remainder = length_ % cols_;
    if (full_rows > 0) {
      GL(glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, static_cast<GLsizei>(cols_),
                         static_cast<GLsizei>(full_rows), format.upload_format, format.gl_type,
                         at(0)));
    }
    if (remainder > 0) {
      GL(glTexSubImage2D(GL_TEXTURE_2D, 0, 0, static_cast<GLint>(full_rows),
                         static_cast<GLsizei>(remainder), 1, format.upload_format, format.gl_type,
                         at(full_rows * cols_ * texel_bytes)));
      GL(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0));
      const std::vector<unsigned char> zeros((cols_ - remainder) * texel_bytes, 0);
      GL(glTexSubImage2D(GL_TEXTURE_2D, 0, static_cast<GLint>(remainder),
                         static_cast<GLint>(full_rows), static_cast<GLsizei>(cols_ - remainder), 1,
                         format.upload_format, format.gl_type, zeros.data()));
    }
  }
  GL(glBindTexture(target, 0));
  GL(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0));
}

void Texture::copy_from(const Buffer& source, std::size_t first_texel) {
  if (!valid() || !source.valid()) throw Error("Texture::copy_from with an empty or released object");
  if (source.context_state() != name_.owner()) {
    throw ArgumentError("Texture::copy_from: the Buffer belongs to another Context");
  }
  const auto per_texel = static_cast<std::size_t>(components(type_));
  if (depth_ > 0 || source.element_type() != element_type(type_) ||
      source.size() % per_texel != 0) {
    throw TypeMismatchError(fmt::format("Texture::copy_from: {} cannot take {} {} values (a 2-D "
                                        "texture, same element type, whole texels)",
                                        describe(), source.size(), to_string(source.element_type())));
  }
  const std::size_t texels = source.size() / per_texel, total = rows_ * cols_;
  if (first_texel > total || texels > total - first_texel) {
    throw SizeMismatchError(fmt::format("Texture::copy_from: texels [{}, {}) are outside {}",
                                        first_texel, first_texel + texels, describe()));
  }
  auto& state = *name_.owner();
  state.ensure_current();
  state.refuse_while_capturing("Texture::copy_from");
  const auto& format = detail::texel_format(type_);
  const std::size_t texel_bytes = per_texel * element_size;
  set_unpack_state();
  GL(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, source.gl_name()));
  GL(glBindTexture(GL_TEXTURE_2D, name_.id()));
  // The span of texels as rectangles: the rest of the first row, whole rows, part of a row.
  for (std::size_t done = 0; done < texels;) {
    const std::size_t t = first_texel + done, x = t % cols_, y = t / cols_;
    const std::size_t width = x > 0 || texels - done < cols_ ? std::min(cols_ - x, texels - done)
                                                             : cols_;
    const std::size_t height = width == cols_ ? (texels - done) / cols_ : 1;
    GL(glTexSubImage2D(GL_TEXTURE_2D, 0, static_cast<GLint>(x), static_cast<GLint>(y),
                       static_cast<GLsizei>(width), static_cast<GLsizei>(height),
                       format.upload_format, format.gl_type,
                       reinterpret_cast<const void*>(static_cast<std::uintptr_t>(done * texel_bytes))));
    done += width * height;
  }
  GL(glBindTexture(GL_TEXTURE_2D, 0));
  GL(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0));
}

void Texture::download_values(ElementType type, void* out, std::size_t count) const {
  download_values_async(type, out, count).wait();
}

PendingRun Texture::download_values_async(ElementType type, void* out, std::size_t count) const {
  check_values("download", *this, type, count);
  auto& state = *name_.owner();
  state.ensure_current();
  state.refuse_while_capturing("Texture::download");
  detail::RunTransfers io(state);
  detail::queue_texture_read(state, io, name_.id(), type_, {cols_, rows_, depth_}, length_, out);
  return io.finish_async();
}

}  // namespace gpgpu
