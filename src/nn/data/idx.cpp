// IDX files (the MNIST format): parsing with every size checked, reading through zlib
// (which passes uncompressed files through unchanged), and writing.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "gpgpu/nn/data.hpp"
#include "zlib_calls.hpp"

namespace gpgpu::nn {

namespace {

constexpr std::uint8_t unsigned_byte_type = 0x08;

std::string idx_type_name(std::uint8_t type) {
  switch (type) {
    case 0x08:
      return "unsigned byte";
    case 0x09:
      return "signed byte";
    case 0x0B:
      return "short";
    case 0x0C:
      return "int";
    case 0x0D:
      return "float";
    case 0x0E:
      return "double";
    default:
      return "unknown";
  }
}

std::uint32_t big_endian_u32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

}  // namespace

IdxArray parse_idx(std::span<const std::uint8_t> bytes, const std::string& origin) {
  if (bytes.size() < 4) {
    throw FormatError(fmt::format("{}: {} bytes is too short for an IDX header (at least 4)",
                                  origin, bytes.size()));
  }
  if (bytes[0] != 0 || bytes[1] != 0) {
    throw FormatError(fmt::format(
        "{}: not an IDX file: it must start with two zero bytes, but starts with 0x{:02X} 0x{:02X}",
        origin, bytes[0], bytes[1]));
  }
  const std::uint8_t type = bytes[2];
  if (type != unsigned_byte_type) {
    throw FormatError(fmt::format(
        "{}: IDX element type 0x{:02X} ({}) is not supported; only 0x08 (unsigned byte) is read",
        origin, type, idx_type_name(type)));
  }
  const std::size_t rank = bytes[3];
  if (rank == 0) throw FormatError(fmt::format("{}: the IDX header gives 0 dimensions", origin));
  const std::size_t header = 4 + 4 * rank;
  if (bytes.size() < header) {
    throw FormatError(
        fmt::format("{}: the IDX header declares {} dimensions ({} bytes) but the file "
                    "has only {} bytes",
                    origin, rank, header, bytes.size()));
  }
  IdxArray array;
  std::size_t count = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    const std::size_t extent = big_endian_u32(&bytes[4 + 4 * d]);
    if (extent != 0 && count > std::numeric_limits<std::size_t>::max() / extent) {
      throw FormatError(fmt::format("{}: the IDX extents overflow", origin));
    }
    count *= extent;
    array.shape.push_back(extent);
  }
  if (bytes.size() - header != count) {
    throw FormatError(fmt::format(
        "{}: the IDX header declares shape ({}) = {} values, but the file holds {} bytes of data",
        origin, fmt::join(array.shape, ", "), count, bytes.size() - header));
  }
  array.values.assign(bytes.begin() + static_cast<std::ptrdiff_t>(header), bytes.end());
  return array;
}

IdxArray read_idx(const std::filesystem::path& path) {
  const auto bytes = detail::read_possibly_gzipped(path);
  return parse_idx(bytes, path.string());
}

void write_idx(const std::filesystem::path& path, const IdxArray& array) {
  std::size_t count = 1;
  for (std::size_t d : array.shape) count *= d;
  if (array.shape.empty() || array.shape.size() > 255 || count != array.values.size()) {
    throw ArgumentError(fmt::format("write_idx: shape ({}) does not match {} values",
                                    fmt::join(array.shape, ", "), array.values.size()));
  }
  std::vector<std::uint8_t> header{0, 0, unsigned_byte_type,
                                   static_cast<std::uint8_t>(array.shape.size())};
  for (std::size_t d : array.shape) {
    for (int shift = 24; shift >= 0; shift -= 8) {
      header.push_back(static_cast<std::uint8_t>((d >> shift) & 0xFF));
    }
  }
  auto temporary = path;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(header.data()),
              static_cast<std::streamsize>(header.size()));
    out.write(reinterpret_cast<const char*>(array.values.data()),
              static_cast<std::streamsize>(array.values.size()));
    if (!out) throw Error(fmt::format("cannot write {}", temporary.string()));
  }
  std::filesystem::rename(temporary, path);
}

}  // namespace gpgpu::nn
