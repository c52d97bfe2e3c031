// `gpgpu argsort IN.npy --out OUT.npy [--descending]`: the uint32 indices that sort the
// flattened array (stable: equal values keep their input order).
#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpgpu/error.hpp"
#include "primitives_cli.hpp"

namespace gpgpu::cli {

namespace {

struct ArgsortOptions {
  PrimitiveFiles files;
  bool descending = false;
};

int run(const ArgsortOptions& o) {
  Context ctx({.device = o.files.device});
  const PrimitiveInput in = load_input(ctx, o.files.input);
  std::vector<std::uint32_t> indices(in.count);
  if (in.count > 0) {
    Buffer result(ctx, ElementType::Uint32, in.count);
    argsort(ctx, in.buffer, result, o.descending ? SortOrder::Descending : SortOrder::Ascending);
    result.download(std::span<std::uint32_t>(indices));
  }
  save_atomically(o.files.output,
                  npy::make<std::uint32_t>({in.count}, std::span<const std::uint32_t>(indices)));
  std::cout << fmt::format("argsort of {} {} ({}) -> {}\n", in.count,
                           npy::dtype_name(in.array.dtype),
                           o.descending ? "descending" : "ascending", o.files.output);
  return 0;
}

}  // namespace

Command add_argsort_command(CLI::App& app) {
  auto* sub =
      app.add_subcommand("argsort", "Indices that sort a .npy array (uint32, stable) on the GPU");
  auto o = std::make_shared<ArgsortOptions>();
  add_file_options(*sub, o->files, false);
  sub->add_flag("--descending", o->descending, "largest first (NaNs still last)");
  return [o]() { return run(*o); };
}

}  // namespace gpgpu::cli
