// Internal: GLSL spellings of element types and operators, shared by the primitives' kernels.
#pragma once

#include <string>
#include <string_view>

#include "gpgpu/arg.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/element_type.hpp"
#include "gpgpu/primitives.hpp"

namespace gpgpu::primitives {

// "float", "int", "uint".
std::string scalar_type(ElementType type);
// "vec4", "ivec4", "uvec4".
std::string vec4_type(ElementType type);
// The GLSL type of an element of `components` scalars: "float", "vec3", "ivec2", "uvec4"...
std::string element_type(ElementType type, int components);

// GLSL functions `TYPE name(TYPE a, TYPE b)` applying `op`, and `TYPE name_identity()`.
// TYPE is `scalar` or a vector of it; built-in operators act per component, a GlslOp is
// spliced in as written.
std::string op_functions(const Operator& op, ElementType scalar, const std::string& type,
                         const std::string& name);

// How a kernel reads its input Buffer.
enum class Loads {
  Storage,  // storage blocks In4 (vec4s) and In1 (scalars) at bindings b and b + 1
  Texels,   // buffer textures in4_texels / in1_texels (gpgpu::texels): CPU devices' fast loads
  Scalars,  // one storage block In1 at binding b; a vec4 is four scalar loads (a block fewer)
};
// "storage", "texels", "scalars" (for kernel names).
const char* to_string(Loads loads);

// Declarations of a kernel's input Buffer and the macros LOAD4(i) (vec4 i, as the scalar
// type's vec4) and LOAD1(i) (scalar i), read as `loads` says from binding `binding` on.
std::string input_glsl(ElementType type, Loads loads, int binding);
// T element(uint e): Buffer element e, C scalars of type T read with LOAD1 (needs T, C and
// input_glsl's macros).
extern const char* const element_glsl;
// The arguments input_glsl's declarations take (Registry::run drops the unused ones).
Args input_args(const Buffer& in);

// Replaces the one occurrence of `from` in `text` by `to`: how a kernel's GLSL becomes a
// variant of itself (fewer storage blocks, other bindings) while its main form stays as
// written. Throws std::logic_error unless `from` occurs exactly once.
void patch(std::string& text, std::string_view from, std::string_view to);

// A cache key fragment naming the operator exactly ("sum", "glsl:<expr>|<identity>").
std::string op_key(const Operator& op);

// A built-in operator as a GLSL expression of `a` and `b` ("a + b", "min(a, b)", ...).
std::string builtin_expression(Op op);

// The identity of a built-in operator as a GLSL literal of the scalar type (infinities
// through their bits: GLSL ES has no literal for them).
std::string builtin_identity_literal(Op op, ElementType type);

// The identity of a built-in operator for a scalar type, as a host value's bits.
std::uint32_t builtin_identity_bits(Op op, ElementType type);

}  // namespace gpgpu::primitives
