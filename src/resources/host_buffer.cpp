#include "gpgpu/host_buffer.hpp"

#include <limits>

#include <fmt/format.h>

#include "gl/context_state.hpp"
#include "gpgpu/context.hpp"

namespace gpgpu {

HostBuffer::HostBuffer(const Context& context, ElementType type, std::size_t count,
                       HostAccess access)
    : state_(context.state()), type_(type), access_(access), count_(count) {
  if (count == 0) throw ArgumentError("a gpgpu::HostBuffer needs at least one element");
  if (count > static_cast<std::size_t>(std::numeric_limits<GLsizeiptr>::max()) / element_size) {
    throw LimitError(fmt::format("a HostBuffer of {} elements does not fit a GL buffer", count));
  }
  state_->ensure_current();
  const GLsizeiptr size = static_cast<GLsizeiptr>(count * element_size);
  if (!state_->info.has_buffer_storage() || state_->ext.buffer_storage == nullptr) {
    fallback_.resize(count * element_size);
    data_ = fallback_.data();
    return;
  }
  GLbitfield map_flags = GL_MAP_PERSISTENT_BIT_EXT | GL_MAP_COHERENT_BIT_EXT;
  if (access != HostAccess::Read) map_flags |= GL_MAP_WRITE_BIT;
  if (access != HostAccess::Write) map_flags |= GL_MAP_READ_BIT;
  GLuint id = 0;
  GL(glGenBuffers(1, &id));
  try {
    GL(glBindBuffer(GL_COPY_WRITE_BUFFER, id));
    state_->ext.buffer_storage(GL_COPY_WRITE_BUFFER, size, nullptr,
                               map_flags | GL_CLIENT_STORAGE_BIT_EXT);
    detail::check_gl("glBufferStorageEXT(HostBuffer)");
    data_ = GL(glMapBufferRange(GL_COPY_WRITE_BUFFER, 0, size, map_flags));
    GL(glBindBuffer(GL_COPY_WRITE_BUFFER, 0));
    if (data_ == nullptr) throw GLError("glMapBufferRange gave no pointer for a HostBuffer", 0);
  } catch (...) {
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    glDeleteBuffers(1, &id);
    glGetError();
    data_ = nullptr;
    throw;
  }
  id_ = id;
}

HostBuffer::~HostBuffer() {
  release();
}

HostBuffer::HostBuffer(HostBuffer&& other) noexcept
    : state_(std::move(other.state_)),
      id_(other.id_),
      data_(other.data_),
      fallback_(std::move(other.fallback_)),
      type_(other.type_),
      access_(other.access_),
      count_(other.count_) {
  other.id_ = 0;
  other.data_ = nullptr;
  other.count_ = 0;
}

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
  if (this != &other) {
    release();
    state_ = std::move(other.state_);
    id_ = other.id_;
    data_ = other.data_;
    fallback_ = std::move(other.fallback_);
    type_ = other.type_;
    access_ = other.access_;
    count_ = other.count_;
    other.id_ = 0;
    other.data_ = nullptr;
    other.count_ = 0;
  }
  return *this;
}

void HostBuffer::release() noexcept {
  if (id_ != 0 && state_ && state_->try_make_current()) {
    glDeleteBuffers(1, &id_);  // unmaps it too
    glGetError();
  }
  id_ = 0;
  data_ = nullptr;
  count_ = 0;
  fallback_.clear();
  fallback_.shrink_to_fit();
  state_.reset();
}

void HostBuffer::check_type(ElementType requested) const {
  if (data_ == nullptr) throw Error("HostBuffer: empty or released");
  if (requested != type_) {
    throw TypeMismatchError(fmt::format("HostBuffer holds {} but was viewed as {}",
                                        to_string(type_), to_string(requested)));
  }
}

}  // namespace gpgpu
