// The public entry points (gpgpu/nn/onnx.hpp): files in and out, the Sequential built from an
// imported network.
#include <unistd.h>

#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "export.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/nn/onnx.hpp"
#include "gpgpu/nn/serialization.hpp"
#include "import.hpp"

namespace gpgpu::nn {

namespace {

namespace fs = std::filesystem;

std::vector<std::byte> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot read {}: no such file", path.string()));
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(fmt::format("cannot read {}", path.string()));
  const auto* first = reinterpret_cast<const std::byte*>(chars.data());
  return {first, first + chars.size()};
}

// The model's flat parameters from each layer's own, concatenated in parameter_specs order.
std::vector<float> flat_parameters(const Sequential& model, const onnx_detail::Network& net) {
  std::vector<float> flat(model.parameter_count());
  std::vector<std::size_t> used(net.params.size(), 0);
  for (const auto& p : model.parameters()) {
    const auto& from = net.params.at(p.layer);
    std::copy_n(from.begin() + static_cast<std::ptrdiff_t>(used[p.layer]), p.shape.size(),
                flat.begin() + static_cast<std::ptrdiff_t>(p.offset));
    used[p.layer] += p.shape.size();
  }
  return flat;
}

}  // namespace

Sequential read_onnx(const Context& context, std::span<const std::byte> bytes,
                     std::string_view origin, const OnnxOptions& options) {
  const auto net = onnx_detail::import_network(bytes, std::string(origin), options);
  Sequential model(context, net.input);
  for (const auto& layer : net.layers) model.add(layer);
  model.set_parameter_values(flat_parameters(model, net));
  model.set_normalization(net.normalization);
  model.set_class_names(net.class_names);
  model.set_backend(Backend::Compute);
  return model;
}

Sequential load_onnx(const Context& context, const fs::path& path, const OnnxOptions& options) {
  return read_onnx(context, read_bytes(path), path.string(), options);
}

std::string onnx_bytes(const Sequential& model) {
  std::string bytes;
  if (!onnx_detail::export_model(model).SerializeToString(&bytes)) {
    throw Error("save_onnx: protobuf could not serialise the model");
  }
  return bytes;
}

void save_onnx(const Sequential& model, const fs::path& path) {
  if (path.empty()) throw ArgumentError("save_onnx: empty path");
  const std::string bytes = onnx_bytes(model);
  if (!path.parent_path().empty()) fs::create_directories(path.parent_path());
  const fs::path temporary =
      path.parent_path() / fmt::format(".{}.tmp-{}", path.filename().string(), ::getpid());
  std::error_code ec;
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      fs::remove(temporary, ec);
      throw Error(fmt::format("save_onnx: cannot write {}", temporary.string()));
    }
  }
  fs::rename(temporary, path, ec);
  if (ec) {
    fs::remove(temporary, ec);
    throw Error(fmt::format("save_onnx: cannot write {}: {}", path.string(), ec.message()));
  }
}

Sequential load_any(const Context& context, const fs::path& path) {
  if (path.extension() == ".onnx") return load_onnx(context, path);
  return load_model(context, path);
}

}  // namespace gpgpu::nn
