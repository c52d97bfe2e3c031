#include "kernel_arguments.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "cli_values.hpp"
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
  if (!text.empty() && text.back() == ',') parts.push_back("");  // "1,2," has an empty third
  std::vector<std::uint32_t> bits;
  const std::string what = fmt::format("--set {} ({} {})", name, var.glsl_type, name);
  for (const auto& p : parts) {
    switch (var.element) {
      case ElementType::Float32: {
        const float f = parse_float32(p, what);
        std::uint32_t b;
        std::memcpy(&b, &f, 4);
        bits.push_back(b);
        break;
      }
      case ElementType::Int32:
        bits.push_back(static_cast<std::uint32_t>(parse_int32(p, what)));
        break;
      case ElementType::Uint32:
        bits.push_back(parse_uint32(p, what));
        break;
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

// Elements of one storage array (vecN/matN elements, not floats).
std::size_t elements_of(const KernelVariable& v, const npy::Array& array) {
  return array.element_count() / static_cast<std::size_t>(std::max(v.components, 1));
}

// Without --size, the work items are the arrays' length: they must agree.
void check_inputs_agree(const std::vector<KernelVariable>& vars,
                        const std::map<std::string, npy::Array>& arrays,
                        const std::vector<std::string>& inputs) {
  std::string lengths;
  std::size_t first = 0;
  bool disagree = false;
  for (const auto& name : inputs) {
    const auto* v = find_variable(vars, name);
    if (v->kind != KernelVariable::Kind::StorageBuffer || v->components <= 0) continue;
    const std::size_t n = elements_of(*v, arrays.at(name));
    if (lengths.empty()) first = n;
    disagree = disagree || n != first;
    lengths += fmt::format("{}{}: {}", lengths.empty() ? "" : ", ", name, n);
  }
  if (disagree) {
    throw SizeMismatchError(fmt::format(
        "the input arrays disagree in length ({} elements), so the number of work items is "
        "ambiguous; give it with --size N",
        lengths));
  }
}

// --size past every array is the obvious mistake of a kernel indexed by gpgpu_index():
// every invocation past the longest array reads and writes outside all of them.
void check_size_fits_arrays(const std::vector<KernelVariable>& vars,
                            const std::map<std::string, npy::Array>& arrays,
                            const std::vector<std::size_t>& size) {
  std::size_t items = 1;
  for (auto s : size) items *= s;
  std::string longest;
  std::size_t longest_length = 0;
  for (const auto& [name, array] : arrays) {
    const auto* v = find_variable(vars, name);
    if (v == nullptr || v->kind != KernelVariable::Kind::StorageBuffer) continue;
    const std::size_t n = elements_of(*v, array);
    if (longest.empty() || n > longest_length) {
      longest = name;
      longest_length = n;
    }
  }
  if (longest.empty() || items <= longest_length) return;
  throw SizeMismatchError(fmt::format(
      "--size asks for {} work items, but the longest array, '{}', has {} elements: the "
      "invocations past it would read and write outside every array. Give --size {} or less, "
      "or --unchecked-size if the kernel bounds its own accesses",
      items, longest, longest_length, longest_length));
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
    if (arrays.count(name)) {
      throw ArgumentError(
          fmt::format("input '{}' is given twice; give each kernel variable one file", name));
    }
    arrays[name] = npy::load(path);
    order.push_back(name);
  }
  for (const auto& text : o.outputs) {
    auto output = split_assignment(text, "--out");
    for (const auto& [earlier, path] : outputs) {
      if (earlier == output.first) {
        throw ArgumentError(
            fmt::format("--out {} is given twice; write each variable once", output.first));
      }
    }
    outputs.push_back(std::move(output));
  }
  if (o.size.empty() && o.groups.empty()) check_inputs_agree(vars, arrays, order);

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

  if (!o.size.empty() && !o.unchecked_size) check_size_fits_arrays(vars, arrays, o.size);

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

void KernelArguments::save_outputs(const OutputFiles& files) const {
  for (const auto& [name, path] : outputs_) npy::save(files.temporary_path(path), arrays_.at(name));
}

void KernelArguments::report_outputs() const {
  for (const auto& [name, path] : outputs_) {
    const auto& a = arrays_.at(name);
    std::cout << fmt::format("wrote {} ({} {}, shape [{}])\n", path, a.element_count(),
                             npy::dtype_name(a.dtype), fmt::join(a.shape, ", "));
  }
}

std::vector<std::pair<std::string, std::string>> output_assignments(
    const std::vector<std::string>& texts) {
  std::vector<std::pair<std::string, std::string>> outputs;
  for (const auto& text : texts) outputs.push_back(split_assignment(text, "--out"));
  return outputs;
}

}  // namespace gpgpu::cli
