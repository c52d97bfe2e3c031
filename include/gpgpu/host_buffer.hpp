// gpgpu/host_buffer.hpp — host memory the GPU copies from and to directly ("pinned").
//
// CUDA's fastest transfers start from page-locked host memory (cudaMallocHost). The GL
// equivalent is a buffer created with glBufferStorageEXT and mapped once, persistently and
// coherently (GL_EXT_buffer_storage): you fill it through span(), and a TransferQueue copy
// to a Buffer is a single GPU copy, with no memcpy on the CPU.
//
//   gpgpu::HostBuffer staging(ctx, gpgpu::ElementType::Float32, n);  // HostAccess::Write
//   fill(staging.span<float>());
//   queue.copy(staging, device_buffer).wait();
//
// Without GL_EXT_buffer_storage it is ordinary host memory (is_mapped() is false) and
// copies go through the queue's staging slots instead; the API is the same.
// Do not write to the span while a copy from it is pending, nor read it before a copy into
// it has been waited for.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "gpgpu/detail/gl_name.hpp"
#include "gpgpu/element_type.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu {

class Context;

// Who writes a HostBuffer and who reads it (it decides the kind of memory).
enum class HostAccess {
  Write,      // the host writes, the GPU reads: uploads (write-combined memory on many GPUs)
  Read,       // the GPU writes, the host reads: downloads (cached memory)
  ReadWrite,  // both
};

// Host memory the GPU copies from and to directly (the manual at the top of this header).
// Move-only.
class HostBuffer {
 public:
  HostBuffer() = default;  // holds nothing
  // `count` elements of `type`, mapped where the device has GL_EXT_buffer_storage.
  HostBuffer(const Context& context, ElementType type, std::size_t count,
             HostAccess access = HostAccess::Write);
  ~HostBuffer();
  // @{
  // Moves the memory; the moved-from HostBuffer holds nothing.
  HostBuffer(HostBuffer&& other) noexcept;
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  // @}
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  // @{
  // The memory as an array of T (which must match element_type(), else TypeMismatchError).
  template <class T>
  std::span<T> span() {
    check_type(element_type_of<T>());
    return {static_cast<T*>(data_), count_};
  }
  template <class T>
  std::span<const T> span() const {
    check_type(element_type_of<T>());
    return {static_cast<const T*>(data_), count_};
  }
  // @}

  ElementType element_type() const noexcept { return type_; }  // float32, int32 or uint32
  HostAccess access() const noexcept { return access_; }       // as made
  std::size_t size() const noexcept { return count_; }         // elements
  std::size_t bytes() const noexcept { return count_ * element_size; }  // size() * 4
  bool valid() const noexcept { return data_ != nullptr; }     // holds memory
  // True when the memory is a persistently mapped GL buffer (copies need no CPU memcpy).
  bool is_mapped() const noexcept { return name_.id() != 0; }
  unsigned gl_name() const noexcept { return name_.id(); }  // 0 when not mapped
  // @{
  // The memory's first byte (null when not valid()).
  void* data() noexcept { return data_; }
  const void* data() const noexcept { return data_; }
  // @}
  // Whether it was made from `context` (and is not released).
  bool belongs_to(const Context& context) const noexcept;
  // For the library's own use (prefer belongs_to); not part of the manual.
  const std::shared_ptr<detail::ContextState>& context_state() const { return state_; }

  void release() noexcept;  // frees the memory now

 private:
  void check_type(ElementType requested) const;

  std::shared_ptr<detail::ContextState> state_;  // also where the memory is not mapped
  detail::GlName<detail::GlKind::Buffer> name_;
  void* data_ = nullptr;
  std::vector<unsigned char> fallback_;  // the memory where the device cannot map buffers
  ElementType type_ = ElementType::Float32;
  HostAccess access_ = HostAccess::Write;
  std::size_t count_ = 0;
};

}  // namespace gpgpu
