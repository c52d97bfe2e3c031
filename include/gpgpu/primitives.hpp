// gpgpu/primitives.hpp — parallel primitives on Buffers: reduce, argmin/argmax.
//
//   gpgpu::Context ctx;
//   auto x = gpgpu::Buffer::from(ctx, host_floats);
//   float s = gpgpu::reduce<float>(ctx, x);                      // sum, read back to the host
//   float m = gpgpu::reduce<float>(ctx, x, gpgpu::Op::Max);
//   gpgpu::reduce(ctx, x, totals, gpgpu::Op::Sum, {.out_offset = 3});  // into totals[3], no wait
//   auto [i, v] = gpgpu::argmax<float>(ctx, x);                  // index of the first maximum
//   float t = gpgpu::reduce(ctx, std::span<const float>(host));  // host data: upload, reduce
//
// Every primitive works on Buffers that stay on the device; the host-span overloads upload
// through Buffer::from and read the result back. The Buffer overloads that write into an
// output Buffer do not wait for the GPU: chain them with kernels and read back once.
//
// Element types: float32, int32 and uint32 Buffers; with `components` = 2, 3 or 4 the
// Buffer holds packed vecN / ivecN / uvecN elements (3n floats for n vec3s) and operators
// act per component (or on the whole vector, for a GLSL operator: see GlslOp).
//
// Operators: Op::Sum, Op::Product, Op::Min, Op::Max, or a GlslOp: an associative GLSL
// expression of `a` and `b` (of the element's GLSL type: float, vec3, ivec2, uint...) with
// its identity, e.g. GlslOp{"max(abs(a), abs(b))", "0.0"}. The operator must be associative
// (it is applied in a tree order); it need not be commutative (operands keep their order).
// Integer sums and products wrap modulo 2^32 (as in GLSL). Min/max of floats involving NaN
// are unspecified (GLSL min/max); sums propagate NaN and infinities as IEEE does.
//
// Accuracy of float sums: the terms are added in a fixed tree whose depth d depends only on
// n (results are deterministic on a device), so |result - exact| <= d * 2^-24 * sum |x_i|;
// reduce_error_depth(ctx, n) gives d (at most about 80 for the largest Buffers, about 20
// for small ones). A product of n floats makes at most n - 1 roundings, each relative
// 2^-24: |result - exact| <= (n - 1) * 2^-24 * |exact| to first order.
//
// Empty input: reduce returns the identity; argmin/argmax return no_index.
//
// Kernels are compiled once per Context (on first use) and reused, as is a scratch Buffer
// grown on demand; both belong to the Context (Context::attachment) and are freed with it.
// release_primitive_resources(ctx) frees them earlier. Using a released Context throws.
//
// Errors (gpgpu::Error subclasses, thrown before anything runs): a Buffer from another
// Context or empty (ArgumentError), a wrong element type (TypeMismatchError), a range or
// output offset outside a Buffer (SizeMismatchError), components outside 1..4, a GLSL
// operator that does not compile (CompileError, with the generated source).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/context.hpp"

namespace gpgpu {

// The built-in operators.
enum class Op { Sum, Product, Min, Max };

// A user operator: `expression` combines `a` and `b` (GLSL, of the element's type) and must
// be associative; `identity` is a GLSL expression e with op(e, x) == op(x, e) == x.
struct GlslOp {
  std::string expression;
  std::string identity;
};

// Either a built-in operator or a GlslOp.
class Operator {
 public:
  Operator(Op op) : builtin_(op) {}                             // NOLINT: implicit on purpose
  Operator(GlslOp op) : custom_(true), glsl_(std::move(op)) {}  // NOLINT
  bool is_builtin() const noexcept { return !custom_; }
  Op builtin() const noexcept { return builtin_; }
  const GlslOp& glsl() const noexcept { return glsl_; }
  std::string describe() const;  // "sum", "max", "glsl(a * b | 1.0)"

 private:
  Op builtin_ = Op::Sum;
  bool custom_ = false;
  GlslOp glsl_;
};

// "sum", "product", "min", "max" (the names the CLI takes); parse_op returns false for others.
std::string to_string(Op op);
bool parse_op(const std::string& name, Op& op);

// `count` elements starting at element `first` (elements of `components` scalars);
// count = whole: to the end of the Buffer.
inline constexpr std::size_t whole = static_cast<std::size_t>(-1);
struct Range {
  std::size_t first = 0;
  std::size_t count = whole;
};

struct ReduceOptions {
  int components = 1;          // 1, or 2..4 for vecN elements
  Range range{};               // which elements to reduce
  std::size_t out_offset = 0;  // where the result goes in the output Buffer, in scalars
};

// ---- reduce -------------------------------------------------------------------------------

// Reduces `in` and writes the result (`components` scalars) to out[out_offset...]; `out`
// has `in`'s element type. Returns without waiting for the GPU.
void reduce(const Context& ctx, const Buffer& in, Buffer& out, const Operator& op = Op::Sum,
            const ReduceOptions& options = {});

// Reduces `in` (scalars) and returns the result; T is float, std::int32_t or std::uint32_t
// and must be `in`'s element type. Waits for the GPU.
template <class T>
T reduce(const Context& ctx, const Buffer& in, const Operator& op = Op::Sum, Range range = {});

// Reduces vecN elements (`components` = N) and returns the N result components.
template <class T>
std::vector<T> reduce_vector(const Context& ctx, const Buffer& in, int components,
                             const Operator& op = Op::Sum, Range range = {});

// Host data: uploaded, reduced, the result returned.
float reduce(const Context& ctx, std::span<const float> in, const Operator& op = Op::Sum);
std::int32_t reduce(const Context& ctx, std::span<const std::int32_t> in,
                    const Operator& op = Op::Sum);
std::uint32_t reduce(const Context& ctx, std::span<const std::uint32_t> in,
                     const Operator& op = Op::Sum);

// The depth d of the summation tree reduce uses for n elements of `components` scalars on
// this device (see "Accuracy" above): |sum - exact| <= d * 2^-24 * sum |x_i| per component.
// builtin_op = false: the depth for a GlslOp (an in-order tree).
int reduce_error_depth(const Context& ctx, std::size_t n, int components = 1,
                       bool builtin_op = true);

// ---- argmin / argmax ----------------------------------------------------------------------

// The index of the first smallest / largest element (scalars only; NaNs are skipped) and
// its value. index == no_index for an empty range or one of NaNs only.
inline constexpr std::uint32_t no_index = 0xFFFFFFFFu;
template <class T>
struct Extreme {
  std::uint32_t index = no_index;  // relative to the Buffer's start, not to range.first
  T value{};
};

template <class T>
Extreme<T> argmin(const Context& ctx, const Buffer& in, Range range = {});
template <class T>
Extreme<T> argmax(const Context& ctx, const Buffer& in, Range range = {});
template <class T>
Extreme<T> argmin(const Context& ctx, std::span<const T> in);
template <class T>
Extreme<T> argmax(const Context& ctx, std::span<const T> in);

// Device results: writes the index (uint32) into index_out[out_offset]. No wait.
void argmin(const Context& ctx, const Buffer& in, Buffer& index_out, std::size_t out_offset = 0,
            Range range = {});
void argmax(const Context& ctx, const Buffer& in, Buffer& index_out, std::size_t out_offset = 0,
            Range range = {});

// ---- resources ----------------------------------------------------------------------------

// Frees the primitives' compiled kernels and scratch Buffers of `ctx` now (they are made
// again on next use).
void release_primitive_resources(const Context& ctx);
// Bytes of scratch device memory the primitives hold for `ctx`.
std::size_t primitive_scratch_bytes(const Context& ctx);

}  // namespace gpgpu
