// `gpgpu export-onnx MODEL OUT.onnx`: a model saved by `gpgpu train` (a directory or .npz),
// or an ONNX file, written as ONNX (opset 13) for ONNX Runtime, OpenCV, TensorRT or
// PyTorch's tools; checked by reading the file back (the same layers and parameters).
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/nn.hpp"
#include "gpgpu/nn/onnx.hpp"

namespace gpgpu::cli {

namespace {

namespace fs = std::filesystem;

struct ExportOnnxCli {
  std::string model, out, device = "auto";
};

int export_onnx(const ExportOnnxCli& o) {
  if (fs::path(o.out).extension() != ".onnx") {
    throw ArgumentError(fmt::format("export-onnx writes an .onnx file; got {}", o.out));
  }
  Context ctx({.device = o.device});
  const auto model = nn::load_any(ctx, o.model);
  nn::save_onnx(model, o.out);
  const auto again = nn::load_onnx(ctx, o.out, {.fold_batchnorm = false});
  if (again.summary() != model.summary() || again.parameter_values() != model.parameter_values()) {
    throw Error(
        fmt::format("{}: reading the file back gives another model than {}", o.out, o.model));
  }
  std::cout << fmt::format(
      "exported {} ({} layers, {} parameters) to {} (ONNX opset 13, {} bytes)\n", o.model,
      model.layers().size(), model.parameter_count(), o.out, fs::file_size(o.out));
  return 0;
}

}  // namespace

Command add_export_onnx_command(CLI::App& app) {
  auto* sub = app.add_subcommand("export-onnx",
                                 "Write a model (gpgpu's own or ONNX) as an ONNX file (opset 13)");
  auto o = std::make_shared<ExportOnnxCli>();
  sub->add_option("model", o->model,
                  "the model: a directory or .npz saved by gpgpu train, or an .onnx file")
      ->required();
  sub->add_option("out", o->out, "the .onnx file to write (replaced atomically)")->required();
  sub->add_option("-d,--device", o->device, "auto, an index, or a word of the renderer");
  return [o]() -> int { return export_onnx(*o); };
}

}  // namespace gpgpu::cli
