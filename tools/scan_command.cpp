// `gpgpu scan IN.npy --out OUT.npy [--op max] [--exclusive] [--components N]`: the prefix
// scan of the flattened array, saved with the input's shape.
#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpgpu/error.hpp"
#include "primitives_cli.hpp"

namespace gpgpu::cli {

namespace {

struct ScanCommandOptions {
  PrimitiveFiles files;
  std::string op = "sum";
  bool exclusive = false;
  int components = 1;
};

int run(const ScanCommandOptions& o) {
  Context ctx({.device = o.files.device});
  const PrimitiveInput in = load_input(ctx, o.files.input);
  const Op op = op_from_name(o.op);
  npy::Array out = in.array;
  if (in.count > 0) {
    Buffer result(ctx, in.buffer.element_type(), in.count);
    const ScanOptions options{o.components, {}, 0, ScanAlgorithm::Auto};
    if (o.exclusive) {
      exclusive_scan(ctx, in.buffer, result, op, options);
    } else {
      inclusive_scan(ctx, in.buffer, result, op, options);
    }
    switch (in.array.dtype) {
      case npy::DType::Float32:
        result.download(out.view<float>());
        break;
      case npy::DType::Int32:
        result.download(out.view<std::int32_t>());
        break;
      case npy::DType::Uint32:
        result.download(out.view<std::uint32_t>());
        break;
    }
  }
  save_atomically(o.files.output, out);
  std::cout << fmt::format("{} {} scan of {} {} -> {}\n", o.exclusive ? "exclusive" : "inclusive",
                           o.op, in.count, npy::dtype_name(in.array.dtype), o.files.output);
  return 0;
}

}  // namespace

Command add_scan_command(CLI::App& app) {
  auto* sub =
      app.add_subcommand("scan", "Prefix scan (cumulative sum, max...) of a .npy array on the GPU");
  auto o = std::make_shared<ScanCommandOptions>();
  add_file_options(*sub, o->files, false);
  add_op_option(*sub, o->op);
  sub->add_flag("--exclusive", o->exclusive,
                "exclusive scan (out[i] excludes in[i]; out[0] = identity)");
  sub->add_option("-c,--components", o->components,
                  "elements of N scalars (vecN), scanned per component")
      ->check(CLI::Range(1, 4));
  return [o]() { return run(*o); };
}

}  // namespace gpgpu::cli
