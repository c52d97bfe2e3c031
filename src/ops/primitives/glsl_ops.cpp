#include "glsl_ops.hpp"

#include <fmt/format.h>

#include <bit>
#include <limits>
#include <stdexcept>

#include "gpgpu/error.hpp"

namespace gpgpu::primitives {

std::string scalar_type(ElementType type) {
  return std::string(glsl_scalar_name(type));
}

std::string vec4_type(ElementType type) {
  switch (type) {
    case ElementType::Float32:
      return "vec4";
    case ElementType::Int32:
      return "ivec4";
    case ElementType::Uint32:
      return "uvec4";
  }
  return "?";
}

std::string element_type(ElementType type, int components) {
  if (components == 1) return scalar_type(type);
  const char* prefix = type == ElementType::Float32 ? "" : type == ElementType::Int32 ? "i" : "u";
  return fmt::format("{}vec{}", prefix, components);
}

void patch(std::string& text, std::string_view from, std::string_view to) {
  const auto at = text.find(from);
  if (at == std::string::npos || text.find(from, at + 1) != std::string::npos) {
    throw std::logic_error(
        fmt::format("gpgpu primitives: a kernel variant's patch does not "
                    "apply (\"{}\" is not in its source exactly once)",
                    from));
  }
  text.replace(at, from.size(), to);
}

// The identity as a GLSL scalar literal. Infinities are spelled through their bits: GLSL ES
// has no infinity literal.
std::string builtin_expression(Op op) {
  switch (op) {
    case Op::Sum:
      return "a + b";
    case Op::Product:
      return "a * b";
    case Op::Min:
      return "min(a, b)";
    case Op::Max:
      return "max(a, b)";
  }
  return "?";
}

std::string builtin_identity_literal(Op op, ElementType type) {
  const std::uint32_t bits = builtin_identity_bits(op, type);
  switch (type) {
    case ElementType::Float32:
      return fmt::format("uintBitsToFloat({}u)", bits);
    case ElementType::Int32:
      return fmt::format("int({}u)", bits);
    case ElementType::Uint32:
      return fmt::format("{}u", bits);
  }
  return "?";
}

std::uint32_t builtin_identity_bits(Op op, ElementType type) {
  switch (op) {
    case Op::Sum:
      return 0u;  // 0.0f, 0, 0u all have zero bits
    case Op::Product:
      return type == ElementType::Float32 ? std::bit_cast<std::uint32_t>(1.0f) : 1u;
    case Op::Min:
      return type == ElementType::Float32 ? 0x7F800000u   // +inf
             : type == ElementType::Int32 ? 0x7FFFFFFFu   // INT32_MAX
                                          : 0xFFFFFFFFu;  // UINT32_MAX
    case Op::Max:
      return type == ElementType::Float32 ? 0xFF800000u  // -inf
             : type == ElementType::Int32 ? 0x80000000u  // INT32_MIN
                                          : 0u;
  }
  return 0u;
}

std::string op_functions(const Operator& op, ElementType scalar, const std::string& type,
                         const std::string& name) {
  std::string expression, identity;
  if (op.is_builtin()) {
    expression = builtin_expression(op.builtin());
    identity = builtin_identity_literal(op.builtin(), scalar);
  } else {
    expression = op.glsl().expression;
    identity = op.glsl().identity;
  }
  return fmt::format(
      "{0} {1}({0} a, {0} b) {{ return {0}({2}); }}\n"
      "{0} {1}_identity() {{ return {0}({3}); }}\n",
      type, name, expression, identity);
}

const char* to_string(Loads loads) {
  switch (loads) {
    case Loads::Storage:
      return "storage";
    case Loads::Texels:
      return "texels";
    case Loads::Scalars:
      return "scalars";
  }
  return "?";
}

std::string input_glsl(ElementType type, Loads loads, int binding) {
  const std::string s = scalar_type(type), v = vec4_type(type);
  if (loads == Loads::Scalars) {
    return fmt::format(
        "layout(std430, binding = {0}) readonly buffer In1 {{ {1} in1[]; }};\n"
        "#define LOAD4(i) {2}(in1[4u * (i)], in1[4u * (i) + 1u], in1[4u * (i) + 2u], "
        "in1[4u * (i) + 3u])\n"
        "#define LOAD1(i) in1[i]\n",
        binding, s, v);
  }
  if (loads == Loads::Texels) {
    const char* prefix = type == ElementType::Float32 ? "" : type == ElementType::Int32 ? "i" : "u";
    return fmt::format(
        "uniform highp {0}samplerBuffer in4_texels;\n"
        "uniform highp {0}samplerBuffer in1_texels;\n"
        "#define LOAD4(i) texelFetch(in4_texels, int(i))\n"
        "#define LOAD1(i) texelFetch(in1_texels, int(i)).x\n",
        prefix);
  }
  return fmt::format(
      "layout(std430, binding = {0}) readonly buffer In4 {{ {1} in4[]; }};\n"
      "layout(std430, binding = {2}) readonly buffer In1 {{ {3} in1[]; }};\n"
      "#define LOAD4(i) in4[i]\n"
      "#define LOAD1(i) in1[i]\n",
      binding, v, binding + 1, s);
}

const char* const element_glsl = R"(
T element(uint e) {
#if C == 1
  return LOAD1(e);
#else
  T v;
  for (uint q = 0u; q < uint(C); ++q) v[q] = LOAD1(e * uint(C) + q);
  return v;
#endif
}
)";

Args input_args(const Buffer& in) {
  return {{"in4", in}, {"in1", in}, {"in4_texels", texels(in, 4)}, {"in1_texels", texels(in, 1)}};
}

std::string op_key(const Operator& op) {
  if (op.is_builtin()) return to_string(op.builtin());
  return "glsl:" + op.glsl().expression + "|" + op.glsl().identity;
}

}  // namespace gpgpu::primitives

namespace gpgpu {

std::string to_string(Op op) {
  switch (op) {
    case Op::Sum:
      return "sum";
    case Op::Product:
      return "product";
    case Op::Min:
      return "min";
    case Op::Max:
      return "max";
  }
  return "?";
}

bool parse_op(const std::string& name, Op& op) {
  for (Op candidate : {Op::Sum, Op::Product, Op::Min, Op::Max}) {
    if (name == to_string(candidate)) {
      op = candidate;
      return true;
    }
  }
  return false;
}

std::string Operator::describe() const {
  if (!custom_) return to_string(builtin_);
  return fmt::format("glsl({} | identity {})", glsl_.expression, glsl_.identity);
}

}  // namespace gpgpu
