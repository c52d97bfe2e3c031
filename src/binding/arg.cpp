#include "gpgpu/arg.hpp"

#include <cstring>

#include <fmt/format.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu {

Arg::Arg(std::initializer_list<float> v) {
  if (v.size() > inline_.size()) {
    throw ArgumentError(fmt::format(
        "a braced list of {} floats is too long to pass by value (16 at most); pass a "
        "std::vector or std::span",
        v.size()));
  }
  set_value(ElementType::Float32, v.begin(), v.size());
}

Arg::Arg(const Buffer& buffer)
    : kind_(Kind::DeviceBuffer), type_(buffer.element_type()), count_(buffer.size()),
      access_(Access::ReadWrite), buffer_(&buffer) {}

Arg::Arg(const Texture& texture) : kind_(Kind::DeviceTexture), texture_(&texture) {}

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
  }
  return "?";
}

}  // namespace gpgpu
