#include "gpgpu/buffer.hpp"

#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "gl/context_state.hpp"
#include "gl/gl_buffer.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu {

Buffer::Buffer(const Context& context, ElementType type, std::size_t count)
    : state_(context.state()), type_(type), count_(count) {
  if (count == 0) throw ArgumentError("a gpgpu::Buffer needs at least one element");
  state_->ensure_current();
  id_ = detail::create_gl_buffer(count * element_size, nullptr, GL_DYNAMIC_COPY);
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& other) noexcept
    : state_(std::move(other.state_)), id_(other.id_), type_(other.type_), count_(other.count_) {
  other.id_ = 0;
  other.count_ = 0;
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    state_ = std::move(other.state_);
    id_ = other.id_;
    type_ = other.type_;
    count_ = other.count_;
    other.id_ = 0;
    other.count_ = 0;
  }
  return *this;
}

void Buffer::release() noexcept {
  if (id_ != 0 && state_ && state_->try_make_current()) {
    glDeleteBuffers(1, &id_);
    glGetError();
  }
  id_ = 0;
  count_ = 0;
  state_.reset();
}

namespace {
void check_range(const char* what, ElementType buffer_type, ElementType host_type, std::size_t count,
                 std::size_t offset, std::size_t size) {
  if (buffer_type != host_type) {
    throw TypeMismatchError(fmt::format("Buffer::{}: the buffer holds {} but the host array is {}",
                                        what, to_string(buffer_type), to_string(host_type)));
  }
  if (offset > size || count > size - offset) {
    throw SizeMismatchError(fmt::format(
        "Buffer::{}: elements [{}, {}) are outside the buffer of {} elements", what, offset,
        offset + count, size));
  }
}
}  // namespace

void Buffer::upload_bytes(ElementType type, const void* data, std::size_t count, std::size_t offset) {
  if (id_ == 0) throw Error("Buffer::upload on an empty or released buffer");
  check_range("upload", type_, type, count, offset, count_);
  if (count == 0) return;
  state_->ensure_current();
  detail::write_gl_buffer(id_, offset * element_size, count * element_size, data);
}

void Buffer::download_bytes(ElementType type, void* out, std::size_t count, std::size_t offset) const {
  if (id_ == 0) throw Error("Buffer::download from an empty or released buffer");
  check_range("download", type_, type, count, offset, count_);
  if (count == 0) return;
  state_->ensure_current();
  detail::read_gl_buffer(id_, offset * element_size, count * element_size, out);
}

}  // namespace gpgpu
