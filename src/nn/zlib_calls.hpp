// Internal: gpgpu::nn's calls into zlib, in one place: gzip files (IDX data sets) and the
// checksums and deflated entries of zip archives (.npz models). The browser build has no
// zlib, and links zlib_unavailable.cpp instead, which refuses each by name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace gpgpu::nn::detail {

// The whole file, decompressed when it is gzip (zlib reads other files unchanged).
std::vector<std::uint8_t> read_possibly_gzipped(const std::filesystem::path& path);
// CRC-32 of a zip entry.
std::uint32_t crc_of(std::span<const std::byte> data);
// A raw deflate stream of `size` bytes once inflated; FormatError naming `what` if corrupt.
std::vector<std::byte> inflate_raw(std::span<const std::byte> compressed, std::size_t size,
                                   const std::string& what);

}  // namespace gpgpu::nn::detail
