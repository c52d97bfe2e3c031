// libFuzzer target for the ONNX reader (src/nn/onnx/import.hpp): bytes -> the network they
// describe, with no GL. Any gpgpu::Error is a correct verdict on a malformed or unsupported
// file. A crash, a sanitizer report, any other exception, or an accepted network that is not
// self-consistent (a layer that does not fit the shape before it, parameters of the wrong
// size) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "gpgpu/error.hpp"
#include "import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  try {
    const auto net = gpgpu::nn::onnx_detail::import_network(bytes, "fuzz.onnx", {});
    gpgpu::nn::Shape shape = net.input;
    if (net.layers.size() != net.params.size() || net.layers.empty()) std::abort();
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
      std::size_t values = 0;
      for (const auto& spec : gpgpu::nn::parameter_specs(net.layers[i], shape)) {
        values += spec.shape.size();
      }
      if (values != net.params[i].size()) std::abort();
      shape = gpgpu::nn::output_shape(net.layers[i], shape);  // throws ArgumentError if unfit
    }
  } catch (const gpgpu::ArgumentError&) {
    std::abort();  // an accepted network whose layers do not fit together
  } catch (const gpgpu::Error&) {
    // The expected outcome for a malformed or unsupported file.
  }
  return 0;
}
