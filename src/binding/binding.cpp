#include "binding/binding.hpp"

#include <set>

#include <fmt/format.h>

#include "binding/texture_binding.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::detail {

namespace {
bool is_internal(const std::string& name) {
  return name.rfind("gpgpu_", 0) == 0;
}
}  // namespace

ResolvedArgs resolve_args(const ProgramInterface& interface, const Args& args,
                          const std::string& label, bool outputs_required) {
  ResolvedArgs r;
  std::set<std::string> seen;
  std::set<const void*> bound;
  for (const auto& arg : args) {
    if (!seen.insert(arg.name).second) {
      throw ArgumentError(fmt::format("{}: argument '{}' is given twice", label, arg.name));
    }
    if (is_internal(arg.name)) {
      throw ArgumentError(
          fmt::format("{}: '{}' is set by gpgpu itself (names starting with gpgpu_ are reserved)",
                      label, arg.name));
    }
    if (const auto* b = interface.find_block(arg.name)) {
      if (!bound.insert(b).second) {
        throw ArgumentError(fmt::format(
            "{}: storage block '{}' is given twice (by its block name and its member name)", label,
            b->name));
      }
      r.blocks.emplace_back(b, &arg);
      continue;
    }
    if (const auto* u = interface.find_uniform(arg.name)) {
      r.uniforms.emplace_back(u, &arg);
      bound.insert(u);
      continue;
    }
    bool matched = false;
    for (const auto& v : interface.inputs) {
      if (v.name == arg.name) {
        r.inputs.emplace_back(&v, &arg);
        bound.insert(&v);
        matched = true;
      }
    }
    for (const auto& v : interface.outputs) {
      if (v.name == arg.name) {
        r.outputs.emplace_back(&v, &arg);
        bound.insert(&v);
        matched = true;
      }
    }
    if (!matched) {
      throw UnknownArgumentError(fmt::format(
          "{}: argument '{}' matches no active variable of the kernel (the compiler drops "
          "variables that do not affect the result). The kernel's variables are:{}",
          label, arg.name, interface.describe()));
    }
  }

  std::vector<std::string> missing;
  for (const auto& b : interface.storage_blocks) {
    if (!bound.count(&b)) {
      missing.push_back(b.member_name.empty()
                            ? fmt::format("buffer {}", b.name)
                            : fmt::format("buffer {} ({})", b.name, b.member_name));
    }
  }
  for (const auto& u : interface.uniforms) {
    if (!is_internal(u.name) && !bound.count(&u)) {
      missing.push_back(fmt::format("uniform {} {}", u.type.name, u.name));
    }
  }
  for (const auto& v : interface.inputs) {
    if (!bound.count(&v)) missing.push_back(fmt::format("in {} {}", v.type.name, v.name));
  }
  if (outputs_required) {
    for (const auto& v : interface.outputs) {
      if (!is_internal(v.name) && !bound.count(&v))
        missing.push_back(fmt::format("out {} {}", v.type.name, v.name));
    }
  }
  if (!missing.empty()) {
    throw MissingArgumentError(
        fmt::format("{}: no value given for: {}", label, fmt::join(missing, ", ")));
  }
  return r;
}

void check_element_type(const NamedArg& arg, const GlslType& type, const std::string& label,
                        const char* what) {
  if (!type.known) {
    throw TypeMismatchError(fmt::format("{}: {} '{}' has a type gpgpu cannot bind ({})", label,
                                        what, arg.name, type.name));
  }
  if (arg.value.element_type() != type.element) {
    const int components = type.components();
    throw TypeMismatchError(
        fmt::format("{}: {} '{}' is declared {} ({} {} component{}) but was given {}; pass {} data",
                    label, what, arg.name, type.name, components, glsl_scalar_name(type.element),
                    components == 1 ? "" : "s", arg.value.describe(), to_string(type.element)));
  }
}

std::size_t whole_elements(const NamedArg& arg, const GlslType& type, const std::string& label,
                           const char* what) {
  const auto components = static_cast<std::size_t>(type.components());
  if (arg.value.count() % components != 0) {
    throw SizeMismatchError(fmt::format(
        "{}: {} '{}' is an array of {} ({} components each), but {} values were given, which "
        "is not a multiple of {}",
        label, what, arg.name, type.name, components, arg.value.count(), components));
  }
  return arg.value.count() / components;
}

void check_uniform(const UniformVariable& u, const NamedArg& arg, const std::string& label) {
  const Arg& v = arg.value;
  if (is_buffer_sampler(u.type.gl)) {
    if (v.kind() != Arg::Kind::BufferTexels) {
      throw TypeMismatchError(fmt::format("{}: uniform {} {} takes gpgpu::texels(buffer), not {}",
                                          label, u.type.name, u.name, v.describe()));
    }
    check_buffer_texels(v, u, label);
    return;
  }
  if (u.type.is_opaque()) {
    if (v.kind() != Arg::Kind::DeviceTexture) {
      throw TypeMismatchError(fmt::format("{}: uniform {} {} takes a gpgpu::Texture, not {}", label,
                                          u.type.name, u.name, v.describe()));
    }
    if (v.texture() == nullptr) {
      throw ArgumentError(
          fmt::format("{}: the Texture for uniform {} {} was destroyed after the argument was made",
                      label, u.type.name, u.name));
    }
    return;
  }
  if (v.kind() == Arg::Kind::DeviceBuffer || v.kind() == Arg::Kind::DeviceTexture ||
      v.kind() == Arg::Kind::BufferTexels || v.kind() == Arg::Kind::HostMemory) {
    throw TypeMismatchError(fmt::format("{}: uniform {} {} takes host values, not {}", label,
                                        u.type.name, u.name, v.describe()));
  }
  check_element_type(arg, u.type, label, "uniform");
  const auto components = static_cast<std::size_t>(u.type.components());
  if (!u.is_array) {
    if (v.count() != components) {
      throw SizeMismatchError(fmt::format(
          "{}: uniform {} {} needs {} value{}, {} {} given", label, u.type.name, u.name, components,
          components == 1 ? "" : "s", v.count(), v.count() == 1 ? "was" : "were"));
    }
    return;
  }
  const std::size_t elements = whole_elements(arg, u.type, label, "uniform");
  // GL reports the active size of a uniform array, which can be smaller than declared.
  if (elements < static_cast<std::size_t>(u.array_size)) {
    throw SizeMismatchError(fmt::format(
        "{}: uniform {} {}[] uses at least {} elements ({} values), but {} values were given",
        label, u.type.name, u.name, u.array_size,
        static_cast<std::size_t>(u.array_size) * components, v.count()));
  }
}

}  // namespace gpgpu::detail
