#include "gpgpu/buffer.hpp"

#include <limits>

#include <fmt/format.h>

#include "gl/buffer_memory.hpp"
#include "gl/context_state.hpp"
#include "gl/gl_buffer.hpp"
#include "gl/gl_name.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"
#include "resources/device_copy.hpp"
#include "transfer/run_transfers.hpp"

namespace gpgpu {

Buffer::Buffer(const Context& context, ElementType type, std::size_t count)
    : type_(type), count_(count) {
  if (count == 0) throw ArgumentError("a gpgpu::Buffer needs at least one element");
  if (count > static_cast<std::size_t>(std::numeric_limits<GLsizeiptr>::max()) / element_size) {
    throw LimitError(fmt::format(
        "a gpgpu::Buffer of {} elements would be larger than any GL buffer can be ({} bytes)",
        count, std::numeric_limits<GLsizeiptr>::max()));
  }
  auto& state = *context.state();
  state.ensure_current();
  name_ = detail::GlBuffer(state.shared_from_this(),
                           detail::create_device_buffer(state, count * element_size));
}

Buffer::~Buffer() {
  release();
  if (self_) *self_ = nullptr;  // Args kept longer now see a destroyed buffer
}

std::shared_ptr<const Buffer* const> Buffer::self_reference() const {
  if (!self_) self_ = std::make_shared<const Buffer*>(this);
  return self_;
}

void Buffer::follow_self() noexcept {
  if (self_) *self_ = this;
}

Buffer::Buffer(Buffer&& other) noexcept
    : self_(std::move(other.self_)),
      name_(std::move(other.name_)),
      type_(other.type_),
      count_(other.count_) {
  other.count_ = 0;
  follow_self();
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    if (self_) *self_ = nullptr;  // the buffer Args were made from is gone
    self_ = std::move(other.self_);
    follow_self();
    name_ = std::move(other.name_);
    type_ = other.type_;
    count_ = other.count_;
    other.count_ = 0;
  }
  return *this;
}

void Buffer::release() noexcept {
  name_.reset();
  count_ = 0;
}

bool Buffer::belongs_to(const Context& context) const noexcept {
  return valid() && name_.owner() == context.state();
}

namespace {
void check_range(const char* what, ElementType buffer_type, ElementType host_type,
                 std::size_t count, std::size_t offset, std::size_t size) {
  if (buffer_type != host_type) {
    throw TypeMismatchError(fmt::format("Buffer::{}: the buffer holds {} but the host array is {}",
                                        what, to_string(buffer_type), to_string(host_type)));
  }
  if (offset > size || count > size - offset) {
    throw SizeMismatchError(
        fmt::format("Buffer::{}: elements [{}, {}) are outside the buffer of {} elements", what,
                    offset, offset + count, size));
  }
}
}  // namespace

void Buffer::upload_bytes(ElementType type, const void* data, std::size_t count,
                          std::size_t offset) {
  if (!valid()) throw Error("Buffer::upload on an empty or released buffer");
  check_range("upload", type_, type, count, offset, count_);
  if (count == 0) return;
  auto& state = *name_.owner();
  state.ensure_current();
  state.refuse_while_capturing("Buffer::upload");
  state.engine().upload(name_.id(), offset * element_size, data, count * element_size);
}

void Buffer::copy_from(const Buffer& source, std::size_t source_offset, std::size_t offset,
                       std::size_t count) {
  if (!valid() || !source.valid())
    throw Error("Buffer::copy_from with an empty or released buffer");
  if (source.name_.owner() != name_.owner()) {
    throw ArgumentError("Buffer::copy_from: the buffers belong to different Contexts");
  }
  check_range("copy_from (source)", source.type_, type_, count, source_offset, source.count_);
  check_range("copy_from", type_, source.type_, count, offset, count_);
  if (source.name_.id() == name_.id() && source_offset < offset + count &&
      offset < source_offset + count) {
    throw ArgumentError("Buffer::copy_from: the ranges overlap within one buffer");
  }
  if (count == 0) return;
  name_.owner()->ensure_current();
  name_.owner()->refuse_while_capturing("Buffer::copy_from");
  detail::copy_on_device(*name_.owner(), source.name_.id(), source_offset * element_size,
                         name_.id(), offset * element_size, count * element_size);
}

void Buffer::download_bytes(ElementType type, void* out, std::size_t count,
                            std::size_t offset) const {
  download_bytes_async(type, out, count, offset).wait();
}

PendingRun Buffer::download_bytes_async(ElementType type, void* out, std::size_t count,
                                        std::size_t offset) const {
  if (!valid()) throw Error("Buffer::download from an empty or released buffer");
  check_range("download", type_, type, count, offset, count_);
  auto& state = *name_.owner();
  state.ensure_current();
  state.refuse_while_capturing("Buffer::download");
  detail::RunTransfers io(state);
  io.download(name_.id(), offset * element_size, out, count * element_size);
  return io.finish_async();
}

}  // namespace gpgpu
