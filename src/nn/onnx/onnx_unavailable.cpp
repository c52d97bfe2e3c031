// The stand-in for a build without the ONNX library (libonnx-dev): every ONNX entry point is
// refused by name; load_any still loads gpgpu's own model files.
#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "gpgpu/nn/onnx.hpp"
#include "gpgpu/nn/serialization.hpp"

namespace gpgpu::nn {

namespace {
[[noreturn]] void refuse(const std::string& what) {
  throw UnsupportedError(
      fmt::format("{}: this gpgpu was built without the ONNX library (install libonnx-dev and "
                  "libprotobuf-dev, then configure again)",
                  what));
}
}  // namespace

Sequential read_onnx(const Context&, std::span<const std::byte>, std::string_view origin,
                     const OnnxOptions&) {
  refuse(fmt::format("reading {}", origin));
}

Sequential load_onnx(const Context&, const std::filesystem::path& path, const OnnxOptions&) {
  refuse(fmt::format("reading {}", path.string()));
}

std::string onnx_bytes(const Sequential&) {
  refuse("writing ONNX");
}

void save_onnx(const Sequential&, const std::filesystem::path& path) {
  refuse(fmt::format("writing {}", path.string()));
}

Sequential load_any(const Context& context, const std::filesystem::path& path) {
  if (path.extension() == ".onnx") return load_onnx(context, path);
  return load_model(context, path);
}

}  // namespace gpgpu::nn
