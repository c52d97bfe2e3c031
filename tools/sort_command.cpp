// `gpgpu sort IN.npy --out OUT.npy [--descending]`: the flattened array's values in sorted
// order (stable radix sort; float order -inf < ... < +inf < NaN), saved 1-D.
#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpgpu/error.hpp"
#include "primitives_cli.hpp"

namespace gpgpu::cli {

namespace {

struct SortCommandOptions {
  PrimitiveFiles files;
  bool descending = false;
};

int run(const SortCommandOptions& o) {
  Context ctx({.device = o.files.device});
  PrimitiveInput in = load_input(ctx, o.files.input);
  npy::Array out = in.array;
  out.shape = {in.count};
  const SortOrder order = o.descending ? SortOrder::Descending : SortOrder::Ascending;
  if (in.count > 0) {
    sort(ctx, in.buffer, order);
    switch (in.array.dtype) {
      case npy::DType::Float32:
        in.buffer.download(out.view<float>());
        break;
      case npy::DType::Int32:
        in.buffer.download(out.view<std::int32_t>());
        break;
      case npy::DType::Uint32:
        in.buffer.download(out.view<std::uint32_t>());
        break;
    }
  }
  save_atomically(o.files.output, out);
  std::cout << fmt::format("sorted {} {} ({}) -> {}\n", in.count, npy::dtype_name(in.array.dtype),
                           o.descending ? "descending" : "ascending", o.files.output);
  return 0;
}

}  // namespace

Command add_sort_command(CLI::App& app) {
  auto* sub = app.add_subcommand("sort", "Sort a .npy array on the GPU (stable LSD radix sort)");
  auto o = std::make_shared<SortCommandOptions>();
  add_file_options(*sub, o->files, false);
  sub->add_flag("--descending", o->descending, "largest first (NaNs still last)");
  return [o]() { return run(*o); };
}

}  // namespace gpgpu::cli
