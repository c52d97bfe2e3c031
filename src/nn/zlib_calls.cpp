#include "zlib_calls.hpp"

#include <zlib.h>

#include <algorithm>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::nn::detail {

// The whole file, decompressed when it is gzip (zlib reads other files unchanged).
std::vector<std::uint8_t> read_possibly_gzipped(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw Error(fmt::format("cannot read {}: no such file", path.string()));
  }
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) throw Error(fmt::format("cannot open {}", path.string()));
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint8_t> chunk(1 << 20);
  for (;;) {
    const int got = gzread(file, chunk.data(), static_cast<unsigned>(chunk.size()));
    if (got < 0) {
      int code = 0;
      const std::string message = gzerror(file, &code);
      gzclose(file);
      throw FormatError(fmt::format("{}: the gzip stream is corrupt ({})", path.string(), message));
    }
    if (got == 0) break;
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + got);
  }
  int code = 0;
  const std::string message = gzerror(file, &code);
  gzclose(file);
  if (code != Z_OK && code != Z_STREAM_END) {
    throw FormatError(fmt::format("{}: the gzip stream is corrupt ({})", path.string(), message));
  }
  return bytes;
}

std::uint32_t crc_of(std::span<const std::byte> data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  std::size_t done = 0;
  while (done < data.size()) {
    const auto n = static_cast<uInt>(std::min<std::size_t>(data.size() - done, 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data() + done), n);
    done += n;
  }
  return static_cast<std::uint32_t>(crc);
}

std::vector<std::byte> inflate_raw(std::span<const std::byte> compressed, std::size_t size,
                                   const std::string& what) {
  std::vector<std::byte> out(size);
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) throw FormatError(what + ": cannot start zlib");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(compressed.data()));
  z.avail_in = static_cast<uInt>(compressed.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int status = inflate(&z, Z_FINISH);
  const bool complete = status == Z_STREAM_END && z.total_out == size;
  inflateEnd(&z);
  if (!complete) throw FormatError(what + ": the deflated data is corrupt");
  return out;
}

}  // namespace gpgpu::nn::detail
