// `gpgpu export-web MODEL OUT`: a model saved by `gpgpu train` (a directory or a .npz) or an
// ONNX file made ready for the browser build: OUT becomes a model directory (model.json and one
// .npy per parameter; the browser build has no zlib to read a .npz), checked by loading it, plus
// --samples test images as raw bytes (samples.u8, sample-labels.u8) for the page's demo.
// The page loads it with gpgpu.loadModel(URL of OUT); docs/browser.md.
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/nn.hpp"
#include "gpgpu/nn/onnx.hpp"
#include "output_files.hpp"

namespace gpgpu::cli {

namespace {

namespace fs = std::filesystem;

struct ExportWebCli {
  std::string model, out, data, device = "auto";
  std::size_t samples = 100;
};

void write_bytes(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  if (!file) throw Error(fmt::format("cannot write {}", path.string()));
}

int export_web(const ExportWebCli& o) {
  Context ctx({.device = o.device});
  const auto model = nn::load_any(ctx, o.model);
  if (fs::path(o.out).extension() == ".npz") {
    throw ArgumentError(fmt::format(
        "export-web writes a directory (the browser build reads no .npz); got {}", o.out));
  }
  nn::Dataset samples;
  if (o.samples > 0) {
    const auto dir = o.data.empty() ? nn::default_data_dir() : fs::path(o.data);
    samples = nn::load_idx_dataset(dir, "t10k").first(o.samples);
    if (samples.sample_shape() != model.input_shape()) {
      throw ArgumentError(fmt::format("the test images are {}, the model takes {}",
                                      samples.sample_shape().to_string(),
                                      model.input_shape().to_string()));
    }
  }
  nn::save_model(model, o.out);
  // Checked the way the browser reads it: a directory loaded back.
  const auto again = nn::load_model(ctx, o.out);
  if (again.parameter_values() != model.parameter_values()) {
    throw Error(fmt::format("{}: the exported parameters differ from {}", o.out, o.model));
  }
  if (samples.count > 0) {
    OutputFiles files;
    const fs::path images = fs::path(o.out) / "samples.u8",
                   labels = fs::path(o.out) / "sample-labels.u8";
    files.reserve("--samples", images);
    files.reserve("--samples", labels);
    write_bytes(files.temporary_path(images), samples.images);
    write_bytes(files.temporary_path(labels), samples.labels);
    files.commit();
  }
  std::cout << fmt::format(
      "exported {} ({} parameters) to {} for the browser{}\n", o.model, model.parameter_count(),
      o.out,
      samples.count > 0 ? fmt::format(", with {} test images (samples.u8)", samples.count) : "");
  return 0;
}

}  // namespace

Command add_export_web_command(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "export-web", "Write a model (gpgpu's own or ONNX) as a directory the browser build loads");
  auto o = std::make_shared<ExportWebCli>();
  sub->add_option("model", o->model,
                  "the model: a directory or .npz saved by gpgpu train, or an .onnx file")
      ->required();
  sub->add_option("out", o->out, "the directory to write (replaced if it holds a model)")
      ->required();
  sub->add_option("--samples", o->samples, "test images to include for the page's demo")
      ->capture_default_str();
  sub->add_option("--data", o->data, "the IDX data set (default: Fashion-MNIST's)");
  sub->add_option("-d,--device", o->device, "auto, an index, or a word of the renderer");
  return [o]() -> int { return export_web(*o); };
}

}  // namespace gpgpu::cli
