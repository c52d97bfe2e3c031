#include "gpgpu/arg.hpp"

#include <cstring>

#include <fmt/format.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/host_buffer.hpp"
#include "gpgpu/texture.hpp"

namespace gpgpu {

Arg::Arg(std::initializer_list<float> v) {
  if (v.size() > inline_.size()) {
    throw ArgumentError(
        fmt::format("a braced list of {} floats is too long to pass by value (16 at most); pass a "
                    "std::vector or std::span",
                    v.size()));
  }
  set_value(ElementType::Float32, v.begin(), v.size());
}

Arg::Arg(const Buffer& buffer)
    : kind_(Kind::DeviceBuffer),
      type_(buffer.element_type()),
      count_(buffer.size()),
      access_(Access::ReadWrite),
      buffer_(buffer.self_reference()) {}

Arg::Arg(const Texture& texture) : kind_(Kind::DeviceTexture), texture_(texture.self_reference()) {}

Arg::Arg(BufferTexels texels)
    : kind_(Kind::BufferTexels),
      count_(static_cast<std::size_t>(texels.components)),
      buffer_(texels.buffer != nullptr ? texels.buffer->self_reference() : nullptr) {
  if (texels.buffer != nullptr) type_ = texels.buffer->element_type();
}

namespace {
Access access_of(HostAccess a, bool writable) {
  if (!writable) return Access::Read;
  return a == HostAccess::Write  ? Access::Read
         : a == HostAccess::Read ? Access::Write
                                 : Access::ReadWrite;
}
}  // namespace

Arg::Arg(HostBuffer& host)
    : kind_(host.is_mapped() ? Kind::HostMemory : Kind::HostArray),
      type_(host.element_type()),
      data_(host.data()),
      writable_(host.data()),
      count_(host.size()),
      access_(access_of(host.access(), true)),
      host_name_(host.gl_name()),
      host_owner_(host.context_state()) {}

Arg::Arg(const HostBuffer& host)
    : kind_(host.is_mapped() ? Kind::HostMemory : Kind::HostArray),
      type_(host.element_type()),
      data_(host.data()),
      count_(host.size()),
      access_(Access::Read),
      host_name_(host.gl_name()),
      host_owner_(host.context_state()) {}

void Arg::set_value(ElementType type, const void* data, std::size_t count) {
  kind_ = Kind::Value;
  type_ = type;
  count_ = count;
  std::memcpy(inline_.data(), data, count * element_size);
}

Arg& Arg::with_access(Access access) {
  if (kind_ != Kind::HostArray) {
    throw ArgumentError("gpgpu::in/out/inout apply to host arrays only");
  }
  if (access != Access::Read && writable_ == nullptr) {
    throw ArgumentError("gpgpu::out/inout need a non-const array to write into");
  }
  access_ = access;
  return *this;
}

std::string Arg::describe() const {
  switch (kind_) {
    case Kind::HostArray:
      return fmt::format("a host array of {} {}", count_, to_string(type_));
    case Kind::Value:
      return count_ == 1 ? fmt::format("a {} value", to_string(type_))
                         : fmt::format("{} {} values", count_, to_string(type_));
    case Kind::DeviceBuffer:
      return fmt::format("a Buffer of {} {}", count_, to_string(type_));
    case Kind::DeviceTexture:
      return "a Texture";
    case Kind::BufferTexels:
      return fmt::format("texels of {} components of a Buffer of {}", count_, to_string(type_));
    case Kind::HostMemory:
      return fmt::format("a mapped HostBuffer of {} {}", count_, to_string(type_));
  }
  return "?";
}

}  // namespace gpgpu
