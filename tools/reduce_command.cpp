// `gpgpu reduce IN.npy [--op max] [--components N] [--out OUT.npy]`: prints the reduction of
// the whole array (per component for vecN data) and optionally saves it.
#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpgpu/error.hpp"
#include "primitives_cli.hpp"

namespace gpgpu::cli {

namespace {

struct ReduceOptions {
  PrimitiveFiles files;
  std::string op = "sum";
  int components = 1;
};

template <class T>
npy::Array reduce_as(const Context& ctx, const PrimitiveInput& in, Op op, int components) {
  std::vector<T> result;
  if (in.count == 0) {
    result =
        std::vector<T>(static_cast<std::size_t>(components), reduce(ctx, std::span<const T>(), op));
  } else {
    result = reduce_vector<T>(ctx, in.buffer, components, op);
  }
  std::vector<std::size_t> shape;
  if (components > 1) shape.push_back(static_cast<std::size_t>(components));
  return npy::make<T>(shape, std::span<const T>(result));
}

int run(const ReduceOptions& o) {
  Context ctx({.device = o.files.device});
  const PrimitiveInput in = load_input(ctx, o.files.input);
  const Op op = op_from_name(o.op);
  npy::Array result;
  switch (in.array.dtype) {
    case npy::DType::Float32:
      result = reduce_as<float>(ctx, in, op, o.components);
      break;
    case npy::DType::Int32:
      result = reduce_as<std::int32_t>(ctx, in, op, o.components);
      break;
    case npy::DType::Uint32:
      result = reduce_as<std::uint32_t>(ctx, in, op, o.components);
      break;
  }
  std::vector<std::string> values;
  for (std::size_t i = 0; i < result.element_count(); ++i) {
    switch (result.dtype) {
      case npy::DType::Float32:
        values.push_back(fmt::format("{:.9g}", result.view<float>()[i]));
        break;
      case npy::DType::Int32:
        values.push_back(fmt::format("{}", result.view<std::int32_t>()[i]));
        break;
      case npy::DType::Uint32:
        values.push_back(fmt::format("{}", result.view<std::uint32_t>()[i]));
        break;
    }
  }
  std::cout << fmt::format("{} of {} {} = {}\n", o.op, in.count, npy::dtype_name(in.array.dtype),
                           fmt::join(values, " "));
  if (!o.files.output.empty()) {
    save_atomically(o.files.output, result);
    std::cout << fmt::format("wrote {}\n", o.files.output);
  }
  return 0;
}

}  // namespace

Command add_reduce_command(CLI::App& app) {
  auto* sub =
      app.add_subcommand("reduce", "Reduce a .npy array (sum, product, min, max) on the GPU");
  auto o = std::make_shared<ReduceOptions>();
  add_file_options(*sub, o->files, true);
  add_op_option(*sub, o->op);
  sub->add_option("-c,--components", o->components,
                  "elements of N scalars (vecN): one result per component")
      ->check(CLI::Range(1, 4));
  return [o]() { return run(*o); };
}

}  // namespace gpgpu::cli
