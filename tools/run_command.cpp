// `gpgpu run KERNEL.comp A=a.npy --out C=c.npy [--size N] [--set alpha=1.5]`: runs any
// compute kernel over NumPy files, binding each file to the kernel variable it is named for.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/npy.hpp"

namespace gpgpu::cli {

namespace {

struct RunOptions {
  std::string kernel_path;
  std::vector<std::string> inputs;    // NAME=file.npy
  std::vector<std::string> outputs;   // NAME=file.npy
  std::vector<std::string> uniforms;  // NAME=v1,v2,...
  std::vector<std::string> defines;   // NAME=VALUE or NAME
  std::vector<std::size_t> size;      // items: N, or X,Y[,Z]
  std::vector<std::size_t> groups;    // work groups X[,Y[,Z]]
  std::string device = "auto";
  bool row_major = false;
  bool profile = false;
  int repeat = 1;
};

std::pair<std::string, std::string> split_assignment(const std::string& text, const char* what) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw ArgumentError(fmt::format("{} '{}' must look like NAME=VALUE", what, text));
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("cannot read kernel file '{}'", path));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

npy::DType dtype_of(ElementType e) {
  switch (e) {
    case ElementType::Float32:
      return npy::DType::Float32;
    case ElementType::Int32:
      return npy::DType::Int32;
    case ElementType::Uint32:
      return npy::DType::Uint32;
  }
  return npy::DType::Float32;
}

// A host array argument over an npy::Array's bytes.
Arg array_arg(npy::Array& array, bool writable) {
  switch (array.dtype) {
    case npy::DType::Float32:
      return writable ? Arg(array.view<float>()) : Arg(std::as_const(array).view<float>());
    case npy::DType::Int32:
      return writable ? Arg(array.view<std::int32_t>())
                      : Arg(std::as_const(array).view<std::int32_t>());
    case npy::DType::Uint32:
      return writable ? Arg(array.view<std::uint32_t>())
                      : Arg(std::as_const(array).view<std::uint32_t>());
  }
  throw Error("unknown dtype");
}

const KernelVariable* find_variable(const std::vector<KernelVariable>& vars,
                                    const std::string& name) {
  for (const auto& v : vars) {
    if (v.name == name || (!v.alias.empty() && v.alias == name)) return &v;
  }
  return nullptr;
}

std::string list_variables(const std::vector<KernelVariable>& vars) {
  std::string s;
  for (const auto& v : vars) {
    s += fmt::format("\n  {} {}{}", v.glsl_type, v.alias.empty() ? v.name : v.alias,
                     v.kind == KernelVariable::Kind::StorageBuffer ? " (buffer)" : " (uniform)");
  }
  return s;
}

// Parses "1.5" or "1,2,3" into values of the uniform's element type.
Arg uniform_arg(const KernelVariable& var, const std::string& name, const std::string& text,
                std::vector<std::vector<std::uint32_t>>& storage, bool row_major) {
  std::vector<std::string> parts;
  std::stringstream s(text);
  for (std::string item; std::getline(s, item, ',');) parts.push_back(item);
  std::vector<std::uint32_t> bits;
  for (const auto& p : parts) {
    std::size_t used = 0;
    try {
      switch (var.element) {
        case ElementType::Float32: {
          float f = std::stof(p, &used);
          std::uint32_t b;
          std::memcpy(&b, &f, 4);
          bits.push_back(b);
          break;
        }
        case ElementType::Int32:
          bits.push_back(
              static_cast<std::uint32_t>(static_cast<std::int32_t>(std::stol(p, &used, 0))));
          break;
        case ElementType::Uint32:
          bits.push_back(static_cast<std::uint32_t>(std::stoul(p, &used, 0)));
          break;
      }
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != p.size() || p.empty()) {
      throw ArgumentError(
          fmt::format("--set {}: '{}' is not a {} value", name, p, glsl_scalar_name(var.element)));
    }
  }
  storage.push_back(std::move(bits));
  auto& held = storage.back();
  Arg arg = [&]() -> Arg {
    switch (var.element) {
      case ElementType::Float32:
        return Arg(
            std::span<const float>(reinterpret_cast<const float*>(held.data()), held.size()));
      case ElementType::Int32:
        return Arg(std::span<const std::int32_t>(reinterpret_cast<const std::int32_t*>(held.data()),
                                                 held.size()));
      case ElementType::Uint32:
        break;
    }
    return Arg(std::span<const std::uint32_t>(held.data(), held.size()));
  }();
  return row_major ? gpgpu::row_major(arg) : arg;
}

int run(const RunOptions& o) {
  Context ctx({.device = o.device});
  Defines defines;
  for (const auto& d : o.defines) {
    const auto eq = d.find('=');
    defines.emplace_back(d.substr(0, eq), eq == std::string::npos ? "" : d.substr(eq + 1));
  }
  ComputeKernel kernel(ctx, read_text(o.kernel_path), defines, o.kernel_path);
  const auto vars = kernel.variables();

  // Inputs first: they fix the sizes of outputs that have none of their own.
  std::map<std::string, npy::Array> arrays;
  std::vector<std::string> order;
  for (const auto& text : o.inputs) {
    auto [name, path] = split_assignment(text, "input");
    if (!find_variable(vars, name)) {
      throw UnknownArgumentError(
          fmt::format("input '{}' matches no variable of {}; its variables are:{}", name,
                      o.kernel_path, list_variables(vars)));
    }
    arrays[name] = npy::load(path);
    order.push_back(name);
  }
  std::vector<std::pair<std::string, std::string>> outputs;
  for (const auto& text : o.outputs) outputs.push_back(split_assignment(text, "--out"));

  std::size_t default_items = 0;
  const npy::Array* shape_source = nullptr;
  if (!o.size.empty()) {
    default_items = 1;
    for (auto s : o.size) default_items *= s;
  }
  for (const auto& name : order) {
    const auto* v = find_variable(vars, name);
    if (v->kind == KernelVariable::Kind::StorageBuffer && v->components > 0) {
      if (default_items == 0)
        default_items = arrays[name].element_count() / static_cast<std::size_t>(v->components);
      if (!shape_source) shape_source = &arrays[name];
    }
  }
  for (const auto& [name, path] : outputs) {
    if (arrays.count(name)) continue;  // an input that is also written: read-modify-write
    const auto* v = find_variable(vars, name);
    if (!v || v->kind != KernelVariable::Kind::StorageBuffer) {
      throw UnknownArgumentError(
          fmt::format("--out '{}' is not a storage buffer of {}; its variables are:{}", name,
                      o.kernel_path, list_variables(vars)));
    }
    const std::size_t items =
        v->array_size > 0 ? static_cast<std::size_t>(v->array_size) : default_items;
    if (items == 0) {
      throw ArgumentError(fmt::format(
          "cannot tell how large output '{}' is: pass --size N or an input array", name));
    }
    const std::size_t count = items * static_cast<std::size_t>(v->components);
    npy::Array out;
    out.dtype = dtype_of(v->element);
    if (shape_source && shape_source->element_count() == count) {
      out.shape = shape_source->shape;
    } else if (v->components == 1) {
      out.shape = {items};
    } else {
      out.shape = {items, static_cast<std::size_t>(v->components)};
    }
    out.data.assign(count * 4, std::byte{0});
    arrays[name] = std::move(out);
  }

  Args args;
  std::vector<std::vector<std::uint32_t>> uniform_storage;
  uniform_storage.reserve(o.uniforms.size());
  for (auto& [name, array] : arrays) {
    bool written = false;
    bool input = std::find(order.begin(), order.end(), name) != order.end();
    for (const auto& out : outputs) written = written || out.first == name;
    Arg arg = array_arg(array, written);
    if (written && !input) arg.with_access(Access::Write);
    if (o.row_major) arg = gpgpu::row_major(arg);
    args.emplace_back(name, arg);
  }
  for (const auto& text : o.uniforms) {
    auto [name, value] = split_assignment(text, "--set");
    const auto* v = find_variable(vars, name);
    if (!v || v->kind != KernelVariable::Kind::Uniform) {
      throw UnknownArgumentError(
          fmt::format("--set '{}' is not a uniform of {}; its variables are:{}", name,
                      o.kernel_path, list_variables(vars)));
    }
    args.emplace_back(name, uniform_arg(*v, name, value, uniform_storage, o.row_major));
  }

  kernel.set_timing(o.profile);
  std::vector<double> gpu_ns, wall_ns;
  for (int r = 0; r < o.repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    if (!o.groups.empty()) {
      Size3 g{o.groups[0], o.groups.size() > 1 ? o.groups[1] : 1,
              o.groups.size() > 2 ? o.groups[2] : 1};
      kernel.run_groups(args, g);
    } else if (o.size.size() > 1) {
      kernel.run(args, Size3{o.size[0], o.size[1], o.size.size() > 2 ? o.size[2] : 1});
    } else if (o.size.size() == 1) {
      kernel.run(args, o.size[0]);
    } else {
      kernel.run(args);
    }
    wall_ns.push_back(
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
    gpu_ns.push_back(kernel.last_gpu_ns());
  }
  for (const auto& [name, path] : outputs) {
    npy::save(path, arrays[name]);
    const auto& a = arrays[name];
    std::cout << fmt::format("wrote {} ({} {}, shape [{}])\n", path, a.element_count(),
                             npy::dtype_name(a.dtype), fmt::join(a.shape, ", "));
  }
  if (o.profile) {
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    std::cout << fmt::format("profile: {} run(s) on {}\n", o.repeat, ctx.info().renderer);
    if (gpu_ns.front() >= 0) {
      std::cout << fmt::format("  GPU time (GL_TIME_ELAPSED, dispatch only): median {:.3f} ms\n",
                               median(gpu_ns) / 1e6);
    } else {
      std::cout << "  GPU time: this device has no timer queries (GL_EXT_disjoint_timer_query); "
                   "only wall time is shown\n";
    }
    std::cout << fmt::format("  wall time (upload + dispatch + read-back): median {:.3f} ms\n",
                             median(wall_ns) / 1e6);
  }
  return 0;
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto* sub = app.add_subcommand("run", "Run a GLSL compute kernel over NumPy .npy files");
  auto o = std::make_shared<RunOptions>();
  sub->add_option("kernel", o->kernel_path, "GLSL compute shader file (declarations and main)")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option(
      "inputs", o->inputs,
      "NAME=file.npy: bind a .npy file (float32/int32/uint32, C order) to a kernel variable");
  sub->add_option("-o,--out", o->outputs,
                  "NAME=file.npy: write this storage array to a .npy file after the run");
  sub->add_option("-s,--set", o->uniforms,
                  "NAME=v[,v...]: set a uniform (scalar, vector, matrix, array)");
  sub->add_option("-D,--define", o->defines,
                  "NAME[=VALUE]: prepend #define NAME VALUE to the kernel");
  sub->add_option("--size", o->size,
                  "work items: N, or X,Y[,Z] (default: the input arrays' length)")
      ->delimiter(',');
  sub->add_option("--groups", o->groups, "dispatch exactly X[,Y[,Z]] work groups")->delimiter(',');
  sub->add_option("-d,--device", o->device, "auto, an index, or a word of the renderer");
  sub->add_flag("--row-major", o->row_major,
                "matrices in the inputs and --set values are row-major");
  sub->add_flag("--profile", o->profile, "time the kernel with GPU timer queries and wall clock");
  sub->add_option("--repeat", o->repeat, "run the kernel this many times (for --profile)")
      ->check(CLI::PositiveNumber);
  return [o]() { return run(*o); };
}

}  // namespace gpgpu::cli
