// Internal: the zip archives NumPy's .npz files are. Writing stores entries uncompressed (as
// numpy.savez does); reading takes stored and deflated entries (numpy.savez_compressed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace gpgpu::nn::detail {

struct ZipEntry {
  std::string name;
  std::vector<std::byte> data;
};

std::vector<std::byte> write_zip(const std::vector<ZipEntry>& entries);
// Throws FormatError naming `origin` for anything malformed or unsupported.
std::vector<ZipEntry> read_zip(std::span<const std::byte> archive, const std::string& origin);

}  // namespace gpgpu::nn::detail
