// The browser build's stand-in for zlib_calls.cpp: Emscripten here has no zlib, so gzip
// files and zip archives (.npz) are refused by name; models load from directories
// (model.json and one .npy per parameter), as gpgpu export-web writes them.
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "zlib_calls.hpp"

namespace gpgpu::nn::detail {

namespace {
[[noreturn]] void refuse(const std::string& what) {
  throw UnsupportedError(fmt::format(
      "{} needs zlib, which the browser build of gpgpu::nn does not have; give it uncompressed "
      "data (IDX files, or a model directory written by `gpgpu export-web`)",
      what));
}
}  // namespace

std::vector<std::uint8_t> read_possibly_gzipped(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error(fmt::format("cannot read {}: no such file", path.string()));
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)),
                                  std::istreambuf_iterator<char>());
  if (bytes.size() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b) {
    refuse(fmt::format("{} is gzip-compressed; reading it", path.string()));
  }
  return bytes;
}

std::uint32_t crc_of(std::span<const std::byte>) {
  refuse("a zip archive (.npz)");
}

std::vector<std::byte> inflate_raw(std::span<const std::byte>, std::size_t,
                                   const std::string& what) {
  refuse(what);
}

}  // namespace gpgpu::nn::detail
