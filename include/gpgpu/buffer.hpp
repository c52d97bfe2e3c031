// gpgpu/buffer.hpp — arrays that live on the GPU between kernel runs.
//
//   auto a = gpgpu::Buffer::from(ctx, std::span<const float>(host));  // upload once
//   gpgpu::Buffer c(ctx, gpgpu::ElementType::Float32, n);               // uninitialised
//   kernel.run({{"a", a}, {"c", c}});  // no host round trip
//   next.run({{"x", c}, ...});         // c feeds the next kernel directly
//   std::vector<float> out = c.to_vector<float>();  // explicit download
//
// Uploads and downloads go through the Context's transfer engine (data_path.hpp): large
// arrays are pipelined through staging memory by several host threads. upload() returns
// once your array may be reused; GL orders every later kernel after it.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "gpgpu/detail/gl_name.hpp"
#include "gpgpu/element_type.hpp"
#include "gpgpu/pending_run.hpp"

namespace gpgpu {

class Context;

// An array on the GPU that stays there between kernel runs (the manual at the top of this
// header). Move-only; binding a moved-from or released Buffer throws ArgumentError.
class Buffer {
 public:
  Buffer() = default;  // holds nothing; binding it is an error
  // An uninitialised device array of `count` elements.
  Buffer(const Context& context, ElementType type, std::size_t count);
  ~Buffer();
  // @{
  // Moves the device array; Args bound to `other` follow it to this Buffer.
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  // @}
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  // @{
  // A new Buffer holding a copy of `data` (float, int32_t or uint32_t).
  template <class T>
  static Buffer from(const Context& context, std::span<const T> data) {
    Buffer b(context, element_type_of<T>(), data.size());
    b.upload(data);
    return b;
  }
  template <class T>
  static Buffer from(const Context& context, const std::vector<T>& data) {
    return from(context, std::span<const T>(data));
  }
  // @}

  // @{
  // Copies host data into the buffer, starting at element `offset`.
  template <class T>
  void upload(std::span<const T> data, std::size_t offset = 0) {
    upload_bytes(element_type_of<T>(), data.data(), data.size(), offset);
  }
  template <class T>
  void upload(const std::vector<T>& data, std::size_t offset = 0) {
    upload(std::span<const T>(data), offset);
  }
  // @}
  // Copies elements [offset, offset + out.size()) into `out`. Waits for the GPU.
  template <class T>
  void download(std::span<T> out, std::size_t offset = 0) const {
    download_bytes(element_type_of<T>(), out.data(), out.size(), offset);
  }
  // Starts copying elements [offset, offset + out.size()) into `out` and returns at once;
  // `out` is filled by the handle's wait() (keep it alive and untouched until then).
  template <class T>
  PendingRun download_async(std::span<T> out, std::size_t offset = 0) const {
    return download_bytes_async(element_type_of<T>(), out.data(), out.size(), offset);
  }
  // The whole buffer, downloaded into a new vector. Waits for the GPU.
  template <class T>
  std::vector<T> to_vector() const {
    std::vector<T> out(size());
    download(std::span<T>(out));
    return out;
  }

  ElementType element_type() const noexcept { return type_; }  // float32, int32 or uint32
  std::size_t size() const noexcept { return count_; }  // elements
  std::size_t bytes() const noexcept { return count_ * element_size; }  // size() * 4
  bool valid() const noexcept { return name_.id() != 0; }  // holds device memory
  unsigned gl_name() const noexcept { return name_.id(); }  // for interoperation with raw GL
  // Whether the buffer was made from `context` (and is not released).
  bool belongs_to(const Context& context) const noexcept;
  // For the library's own use (prefer belongs_to); not part of the manual.
  const std::shared_ptr<detail::ContextState>& context_state() const { return name_.owner(); }

  // Copies `count` elements of `source` (from element `source_offset`) into this buffer from
  // element `offset`, on the GPU. Both must hold the same element type; TypeMismatchError,
  // SizeMismatchError otherwise. The two may be the same buffer if the ranges do not overlap.
  void copy_from(const Buffer& source, std::size_t source_offset, std::size_t offset,
                 std::size_t count);

  // Frees the device memory now.
  void release() noexcept;

  // For Arg: where this object lives, updated when it is moved and set to null when it is
  // destroyed, so that an Arg kept longer than the object cannot dangle.
  std::shared_ptr<const Buffer* const> self_reference() const;

 private:
  void upload_bytes(ElementType type, const void* data, std::size_t count, std::size_t offset);
  void download_bytes(ElementType type, void* out, std::size_t count, std::size_t offset) const;
  PendingRun download_bytes_async(ElementType type, void* out, std::size_t count,
                                  std::size_t offset) const;

  // Follows this object; see self_reference().
  void follow_self() noexcept;

  mutable std::shared_ptr<const Buffer*> self_;
  detail::GlName<detail::GlKind::Buffer> name_;
  ElementType type_ = ElementType::Float32;
  std::size_t count_ = 0;
};

}  // namespace gpgpu
