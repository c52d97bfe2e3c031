// gpgpu/arg.hpp — values bound to a kernel's variables by name.
//
// A kernel learns its variables from the driver (program introspection); an Arg is matched
// to a variable by name and checked against its declaration:
//   storage block / per-element input  <- host array (std::vector, std::span) or Buffer
//   storage block (compute kernels)    <- HostBuffer: the kernel reads and writes the pinned
//                                         host memory itself over the bus, no copy (zero-copy;
//                                         as a host array where it is not mapped)
//   uniform scalar, vector, matrix     <- float, int32_t, uint32_t, std::array, span, vector
//   sampler / image                    <- Texture
//   samplerBuffer, isamplerBuffer, usamplerBuffer <- gpgpu::texels(buffer): a Buffer read
//                                         through a buffer texture (texelFetch(s, i))
// Host arrays given as const are inputs. Non-const arrays are read and written back
// (gpgpu::in, gpgpu::out, gpgpu::inout say it explicitly; out skips the upload).
// Matrices are taken column-major, as GLSL stores them; wrap row-major data in
// gpgpu::row_major(...) and gpgpu transposes it.
//
// Lifetimes: an Arg refers to host arrays (it does not copy them: keep them alive while the
// Arg is used). Buffers and Textures it follows safely: an Arg kept after its Buffer or
// Texture was moved refers to the moved-to object, and one kept after it was destroyed
// makes run() throw ArgumentError ("... was destroyed") instead of reading freed memory.
// A HostBuffer must outlive the run, as a host array must; run() returns once the GPU is done
// with a HostBuffer it may write (HostAccess::Read or ReadWrite), run_async()'s wait() does.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gpgpu/element_type.hpp"

namespace gpgpu {

class Buffer;
class HostBuffer;
class Texture;
namespace detail {
struct ContextState;
}

// A Buffer read through a buffer texture (OpenGL ES 3.2, or GL_EXT_texture_buffer): bound to
// a samplerBuffer (float), isamplerBuffer (int32) or usamplerBuffer (uint32) uniform of the
// Buffer's element type, texelFetch(s, i) returns texel i of `components` scalars (1: r32,
// 4: rgba32; a trailing partial texel is not addressable). On CPU devices (llvmpipe) a texel
// fetch is a vector gather while a storage load at per-invocation addresses is a loop over
// the lanes, so this is the fast way to read there.
struct BufferTexels {
  const Buffer* buffer = nullptr;  // the Buffer read
  int components = 1;              // scalars per texel: 1 or 4
};
// Binds `buffer` to a samplerBuffer uniform, `components` scalars a texel (see BufferTexels).
inline BufferTexels texels(const Buffer& buffer, int components = 1) {
  return {&buffer, components};
}

// What a kernel does with a host array: reads it (uploaded only), writes it (downloaded only:
// gpgpu::out), or both.
enum class Access { Read, ReadWrite, Write };
// How matrix data is laid out in a host array: GLSL's column-major, or C's row-major.
enum class MatrixLayout { ColumnMajor, RowMajor };

// A value bound to a kernel variable: a scalar, small vector or matrix kept by value, a host
// array (referred to, not copied), a Buffer, a Texture, a Buffer's texels or a HostBuffer.
// Made implicitly from each of these (see the manual at the top of this header).
class Arg {
 public:
  // What the Arg holds.
  enum class Kind { HostArray, Value, DeviceBuffer, DeviceTexture, BufferTexels, HostMemory };

  // Scalars (kept inside the Arg, so temporaries are fine).
  Arg(float v) { set_value(ElementType::Float32, &v, 1); }
  // A double is bound as float32 (GLES has no double uniforms).
  Arg(double v) {
    const auto f = static_cast<float>(v);
    set_value(ElementType::Float32, &f, 1);
  }
  Arg(std::int32_t v) { set_value(ElementType::Int32, &v, 1); }    // an int uniform
  Arg(std::uint32_t v) { set_value(ElementType::Uint32, &v, 1); }  // a uint uniform
  // Small vectors and matrices by value, e.g. std::array<float, 9> for a mat3.
  template <class T, std::size_t N>
  Arg(const std::array<T, N>& v) {
    static_assert(N <= 16, "pass larger uniform arrays as a std::span or std::vector");
    set_value(element_type_of<T>(), v.data(), N);
  }
  Arg(std::initializer_list<float> v);  // {1.0f, 2.0f, 3.0f} for a vec3

  // Host arrays.
  // @{
  // A const array or span is an input; a non-const one is read and written back.
  template <class T>
  Arg(std::span<const T> s)
      : Arg(Kind::HostArray, element_type_of<T>(), s.data(), s.size(), Access::Read) {}
  template <class T>
  Arg(std::span<T> s)
      : Arg(Kind::HostArray, element_type_of<T>(), s.data(), s.size(), Access::ReadWrite) {
    writable_ = s.data();
  }
  template <class T>
  Arg(const std::vector<T>& v) : Arg(std::span<const T>(v)) {}
  template <class T>
  Arg(std::vector<T>& v) : Arg(std::span<T>(v)) {}
  // @}

  // Device objects.
  Arg(const Buffer& buffer);    // a Buffer: bound as it is, no copy
  Arg(const Texture& texture);  // a Texture: a sampler, an image or a fragment output
  Arg(BufferTexels texels);  // count() is the texel's components
  // A mapped HostBuffer is HostMemory (bound as it is); an unmapped one is a host array. The
  // GPU reads a HostAccess::Write buffer, writes a Read one, both for ReadWrite.
  Arg(HostBuffer& host);
  Arg(const HostBuffer& host);  // read only

  Kind kind() const noexcept { return kind_; }                  // what the Arg holds
  ElementType element_type() const noexcept { return type_; }  // float32, int32 or uint32
  std::size_t count() const noexcept { return count_; }  // elements of element_type()
  Access access() const noexcept { return access_; }        // read, write or both
  MatrixLayout layout() const noexcept { return layout_; }  // how matrices are laid out
  // The elements (host arrays and values); null for device objects.
  const void* data() const noexcept { return kind_ == Kind::Value ? inline_.data() : data_; }
  // The elements to write back to (non-const host arrays); null otherwise.
  void* writable_data() const noexcept { return writable_; }
  // The Buffer or Texture now, or null when it has been destroyed since (see above).
  const Buffer* buffer() const noexcept { return buffer_ ? *buffer_ : nullptr; }
  const Texture* texture() const noexcept { return texture_ ? *texture_ : nullptr; }  // or null
  // HostMemory: the mapped GL buffer.
  unsigned host_gl_name() const noexcept { return host_name_; }
  // HostMemory: the state of the Context that made the HostBuffer.
  const detail::ContextState* host_owner() const noexcept { return host_owner_.get(); }
  std::string describe() const;  // "a float32 array of 12", "a uint32 value", ...

  // Sets the direction (gpgpu::in, out, inout use it); returns this Arg.
  Arg& with_access(Access access);
  // Sets the matrix layout (gpgpu::row_major uses it); returns this Arg.
  Arg& with_layout(MatrixLayout layout) {
    layout_ = layout;
    return *this;
  }

 private:
  Arg(Kind kind, ElementType type, const void* data, std::size_t count, Access access)
      : kind_(kind), type_(type), data_(data), count_(count), access_(access) {}
  void set_value(ElementType type, const void* data, std::size_t count);

  Kind kind_ = Kind::Value;
  ElementType type_ = ElementType::Float32;
  const void* data_ = nullptr;
  void* writable_ = nullptr;
  std::size_t count_ = 0;
  Access access_ = Access::Read;
  MatrixLayout layout_ = MatrixLayout::ColumnMajor;
  // Where the Buffer or Texture lives, kept up to date by the object itself.
  std::shared_ptr<const Buffer* const> buffer_;
  std::shared_ptr<const Texture* const> texture_;
  unsigned host_name_ = 0;
  std::shared_ptr<detail::ContextState> host_owner_;
  std::array<std::uint32_t, 16> inline_{};
};

// Explicit directions for host arrays.
// An input: uploaded, never written back.
template <class C>
Arg in(const C& container) {
  return Arg(std::span<const typename C::value_type>(container));
}
// An output: written back, never uploaded (the kernel must write every element it needs).
template <class C>
Arg out(C& container) {
  return Arg(std::span<typename C::value_type>(container)).with_access(Access::Write);
}
// Both: uploaded and written back (what a non-const array is by default).
template <class C>
Arg inout(C& container) {
  return Arg(std::span<typename C::value_type>(container));
}
// Row-major matrix data (C order): gpgpu transposes it into GLSL's column-major matrices.
inline Arg row_major(Arg arg) {
  return arg.with_layout(MatrixLayout::RowMajor);
}
// Column-major matrix data (GLSL's order, the default): bound as it is.
inline Arg column_major(Arg arg) {
  return arg.with_layout(MatrixLayout::ColumnMajor);
}

// An Arg and the name of the kernel variable it binds to: one entry of Args.
struct NamedArg {
  NamedArg(std::string n, Arg v) : name(std::move(n)), value(std::move(v)) {}  // {"x", x}
  std::string name;  // the variable's name in the GLSL (a block's member, a uniform, an in/out)
  Arg value;         // what is bound to it
};

// {{"a", a}, {"alpha", 2.0f}, {"c", gpgpu::out(c)}}
using Args = std::vector<NamedArg>;

}  // namespace gpgpu
