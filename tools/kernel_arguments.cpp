#include "kernel_arguments.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::cli {

namespace {

std::pair<std::string, std::string> split_assignment(const std::string& text, const char* what) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw ArgumentError(fmt::format("{} '{}' must look like NAME=VALUE", what, text));
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::string read_text_file(const std::string& path) {
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

}  // namespace

std::string read_text(const std::string& path) {
  return read_text_file(path);
}

Defines parse_defines(const std::vector<std::string>& texts) {
  Defines defines;
  for (const auto& d : texts) {
    const auto eq = d.find('=');
    defines.emplace_back(d.substr(0, eq), eq == std::string::npos ? "" : d.substr(eq + 1));
  }
  return defines;
}

KernelArguments::KernelArguments(const std::vector<KernelVariable>& vars,
                                 const KernelArgumentOptions& o) {
  auto& arrays = arrays_;
  auto& outputs = outputs_;
  auto& args = args_;
  // Inputs first: they fix the sizes of outputs that have none of their own.
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

  uniform_storage_.reserve(o.uniforms.size());
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
    args.emplace_back(name, uniform_arg(*v, name, value, uniform_storage_, o.row_major));
  }
}

void KernelArguments::save_outputs() const {
  for (const auto& [name, path] : outputs_) {
    const auto& a = arrays_.at(name);
    npy::save(path, a);
    std::cout << fmt::format("wrote {} ({} {}, shape [{}])\n", path, a.element_count(),
                             npy::dtype_name(a.dtype), fmt::join(a.shape, ", "));
  }
}

}  // namespace gpgpu::cli
