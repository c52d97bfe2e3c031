// ComputeKernel: binding host arrays (scalars, vectors, matrices in std430), uniforms of every
// type, in/out/inout, exact integer arithmetic, every way of sizing a dispatch (also beyond the
// work-group count limit), Buffers, the program cache and defines.
//
// Every output is poisoned before a run and every element is checked against a float64 (or
// exact integer) reference computed here on fresh random inputs.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "gpgpu/gpgpu.hpp"
#include "test_support.hpp"

namespace {

using gpgpu::test::eps32;
using gpgpu::test::poison_float;
using gpgpu::test::poison_int;
using gpgpu::test::poison_uint;

gpgpu::Context& ctx() {
  return gpgpu::test::context();
}

// The poison value of each element type (test_support's), for filling outputs generically.
template <class T>
T poison() {
  if constexpr (std::is_same_v<T, float>) {
    return poison_float();
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return poison_int;
  } else {
    return poison_uint;
  }
}

std::uint32_t bits(float x) {
  return std::bit_cast<std::uint32_t>(x);
}
std::uint32_t bits(std::int32_t x) {
  return static_cast<std::uint32_t>(x);
}
std::uint32_t bits(std::uint32_t x) {
  return x;
}

// Asserts two arrays are identical bit for bit (NaN poison included), naming the first
// element that differs.
template <class T>
void expect_same_bits(const std::vector<T>& got, const std::vector<T>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(bits(got[i]), bits(want[i]))
        << what << " element " << i << ": got " << got[i] << ", want " << want[i];
  }
}

// gamma_k = k u / (1 - k u): the classic bound on the relative error that k float32
// roundings can accumulate along one path of a computation (Higham, Accuracy and Stability
// of Numerical Algorithms, lemma 3.1).
double gamma(int k) {
  return k * eps32 / (1 - k * eps32);
}

// --- plain arrays of float -------------------------------------------------------------------

TEST(ComputeKernel, FloatArrays) {
  gpgpu::ComputeKernel kernel(ctx(), R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) readonly buffer A { float a[]; };
    layout(std430, binding = 1) readonly buffer B { float b[]; };
    layout(std430, binding = 2) writeonly buffer C { float c[]; };
    void main() {
      uint i = gpgpu_index();
      if (i < gpgpu_count) c[i] = a[i] * b[i] + a[i];
    })");
  const std::size_t n = 10007;  // not a multiple of the work-group size
  const auto a = gpgpu::test::random_floats(n, -4.0f, 4.0f);
  const auto b = gpgpu::test::random_floats(n, -4.0f, 4.0f);
  std::vector<float> c(n, poison_float());
  kernel.run({{"a", a}, {"b", b}, {"c", gpgpu::out(c)}});
  for (std::size_t i = 0; i < n; ++i) {
    const double ab = static_cast<double>(a[i]) * b[i];
    // Two roundings (product, sum), or one if the driver fuses them: gamma_2 * (|ab| + |a|).
    const double bound = gamma(2) * (std::abs(ab) + std::abs(a[i]));
    ASSERT_LE(std::abs(c[i] - (ab + a[i])), bound) << "element " << i;
  }
}

// --- exact integer arithmetic ----------------------------------------------------------------

TEST(ComputeKernel, Int32ArithmeticWrapsExactly) {
  gpgpu::ComputeKernel kernel(ctx(), R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) readonly buffer A { int a[]; };
    layout(std430, binding = 1) readonly buffer B { int b[]; };
    layout(std430, binding = 2) writeonly buffer C { int c[]; };
    void main() {
      uint i = gpgpu_index();
      if (i < gpgpu_count) c[i] = a[i] * b[i] + (a[i] << 5) - b[i];
    })");
  const std::size_t n = 4099;
  // Full range: the products overflow almost always, which GLSL defines as wrapping mod 2^32.
  auto a = gpgpu::test::random_ints(n, INT32_MIN + 1, INT32_MAX);
  auto b = gpgpu::test::random_ints(n, INT32_MIN + 1, INT32_MAX);
  a[0] = INT32_MAX;  // INT32_MAX * 2 + ... wraps for certain
  b[0] = 2;
  a[1] = INT32_MIN;
  b[1] = -1;  // INT32_MIN * -1 wraps back to INT32_MIN
  std::vector<std::int32_t> c(n, poison_int);
  kernel.run({{"a", a}, {"b", b}, {"c", gpgpu::out(c)}});
  std::vector<std::int32_t> want(n);
  for (std::size_t i = 0; i < n; ++i) {
    // Two's complement wrap-around, computed without signed overflow (undefined in C++).
    const auto ua = static_cast<std::uint32_t>(a[i]), ub = static_cast<std::uint32_t>(b[i]);
    want[i] = static_cast<std::int32_t>(ua * ub + (ua << 5) - ub);
  }
  expect_same_bits(c, want, "c");
}

TEST(ComputeKernel, Uint32ArithmeticOnLargeValuesIsExact) {
  gpgpu::ComputeKernel kernel(ctx(), R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) readonly buffer A { uint a[]; };
    layout(std430, binding = 1) readonly buffer B { uint b[]; };
    layout(std430, binding = 2) writeonly buffer C { uint c[]; };
    void main() {
      uint i = gpgpu_index();
      if (i < gpgpu_count) c[i] = (a[i] * b[i]) ^ (a[i] / (b[i] % 65521u + 1u)) + (b[i] >> 7);
    })");
  const std::size_t n = 4099;
  // Above 2^31, where a signed interpretation or a float conversion anywhere would show.
  const auto a = gpgpu::test::random_uints(n, 0x80000000u, 0xFFFFFFFFu);
  const auto b = gpgpu::test::random_uints(n, 0x80000000u, 0xFFFFFFFFu);
  std::vector<std::uint32_t> c(n, poison_uint);
  kernel.run({{"a", a}, {"b", b}, {"c", gpgpu::out(c)}});
  std::vector<std::uint32_t> want(n);
  for (std::size_t i = 0; i < n; ++i) {
    want[i] = (a[i] * b[i]) ^ ((a[i] / (b[i] % 65521u + 1u)) + (b[i] >> 7));
  }
  expect_same_bits(c, want, "c");
}

// --- vectors in storage arrays ---------------------------------------------------------------

struct VectorCase {
  const char* type;
  const char* swizzle;  // a permutation, so that every component lands somewhere else
  int components;
};

class VectorStorage : public ::testing::TestWithParam<VectorCase> {};

// One kernel for every vector type: out = in.swizzle and, in place, inout = inout.swizzle.
// A swizzle does no arithmetic, so results are exact; a wrong std430 stride (vec3 is padded
// to 16 bytes) would shift every element after the first.
template <class T>
void run_vector_case(const VectorCase& param, const std::vector<T>& input,
                     const std::vector<T>& in_place_start) {
  gpgpu::ComputeKernel kernel(ctx(), R"(
    layout(local_size_x = 32) in;
    layout(std430, binding = 0) readonly buffer In { T in_values[]; };
    layout(std430, binding = 1) writeonly buffer Out { T out_values[]; };
    layout(std430, binding = 2) buffer InOut { T inout_values[]; };
    void main() {
      uint i = gpgpu_index();
      if (i < gpgpu_count) {
        out_values[i] = in_values[i].SWIZZLE;
        inout_values[i] = inout_values[i].SWIZZLE;
      }
    })",
                              {{"T", param.type}, {"SWIZZLE", param.swizzle}});
  const auto n = input.size() / static_cast<std::size_t>(param.components);
  std::vector<T> output(input.size(), poison<T>());
  auto in_place = in_place_start;
  kernel.run({{"in_values", input},
              {"out_values", gpgpu::out(output)},
              {"inout_values", gpgpu::inout(in_place)}});

  std::vector<T> want(input.size()), want_in_place(input.size());
  const std::string swizzle = param.swizzle;
  const auto comps = static_cast<std::size_t>(param.components);
  for (std::size_t e = 0; e < n; ++e) {
    for (std::size_t k = 0; k < comps; ++k) {
      const std::size_t from = std::string("xyzw").find(swizzle[k]);
      want[e * comps + k] = input[e * comps + from];
      want_in_place[e * comps + k] = in_place_start[e * comps + from];
    }
  }
  expect_same_bits(output, want, "out_values");
  expect_same_bits(in_place, want_in_place, "inout_values");
}

TEST_P(VectorStorage, SwizzleRoundTripsThroughStd430) {
  const auto& param = GetParam();
  const std::size_t n = 203;
  const auto count = n * static_cast<std::size_t>(param.components);
  const std::string type = param.type;
  if (type[0] == 'i') {
    run_vector_case(param, gpgpu::test::random_ints(count, INT32_MIN + 1, INT32_MAX),
                    gpgpu::test::random_ints(count, INT32_MIN + 1, INT32_MAX));
  } else if (type[0] == 'u') {
    run_vector_case(param, gpgpu::test::random_uints(count, 1, UINT32_MAX),
                    gpgpu::test::random_uints(count, 1, UINT32_MAX));
  } else {
    run_vector_case(param, gpgpu::test::random_floats(count), gpgpu::test::random_floats(count));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Types, VectorStorage,
    ::testing::Values(VectorCase{"vec2", "yx", 2}, VectorCase{"vec3", "zxy", 3},
                      VectorCase{"vec4", "wzxy", 4}, VectorCase{"ivec3", "yzx", 3},
                      VectorCase{"uvec3", "zxy", 3}, VectorCase{"uvec4", "ywxz", 4}),
    [](const auto& test_info) { return std::string(test_info.param.type); });

// --- matrices in storage arrays --------------------------------------------------------------

struct MatrixCase {
  const char* type;  // GLSL matCxR: C columns of R rows
  int columns;
  int rows;
};

class MatrixStorage : public ::testing::TestWithParam<MatrixCase> {};

// Element (row, column) of matrix e in a flat host array.
float host_entry(const std::vector<float>& m, std::size_t e, int row, int column, int rows,
                 int columns, bool host_row_major) {
  const std::size_t base = e * static_cast<std::size_t>(rows * columns);
  return m[base +
           static_cast<std::size_t>(host_row_major ? row * columns + column : column * rows + row)];
}

// r[i] = m[i] * v[i] and m_copy[i] = m[i], for every combination of the device layout
// (std430 column_major / row_major blocks: mat3 columns are padded to 16 bytes) and the host
// layout (column-major, or row-major through gpgpu::row_major).
TEST_P(MatrixStorage, ProductAndCopyInEveryLayout) {
  const auto& param = GetParam();
  const int rows = param.rows, columns = param.columns;
  const std::size_t n = 129;
  const auto entries = static_cast<std::size_t>(rows * columns);
  for (const char* device_layout : {"column_major", "row_major"}) {
    gpgpu::ComputeKernel kernel(ctx(), R"(
      layout(local_size_x = 32) in;
      layout(std430, binding = 0, DEVICE_LAYOUT) readonly buffer M { MAT m[]; };
      layout(std430, binding = 1) readonly buffer V { VIN v[]; };
      layout(std430, binding = 2) writeonly buffer R { VOUT r[]; };
      layout(std430, binding = 3, DEVICE_LAYOUT) writeonly buffer Copy { MAT m_copy[]; };
      void main() {
        uint i = gpgpu_index();
        if (i < gpgpu_count) {
          r[i] = m[i] * v[i];
          m_copy[i] = m[i];
        }
      })",
                                {{"MAT", param.type},
                                 {"VIN", "vec" + std::to_string(columns)},
                                 {"VOUT", "vec" + std::to_string(rows)},
                                 {"DEVICE_LAYOUT", device_layout}});
    for (const bool host_row_major : {false, true}) {
      SCOPED_TRACE(std::string(device_layout) + " device, " +
                   (host_row_major ? "row-major" : "column-major") + " host");
      const auto m = gpgpu::test::random_floats(n * entries);
      const auto v = gpgpu::test::random_floats(n * static_cast<std::size_t>(columns));
      std::vector<float> r(n * static_cast<std::size_t>(rows), poison_float());
      std::vector<float> m_copy(n * entries, poison_float());
      auto layout = [&](gpgpu::Arg arg) {
        return host_row_major ? gpgpu::row_major(std::move(arg)) : std::move(arg);
      };
      kernel.run({{"m", layout(gpgpu::in(m))},
                  {"v", v},
                  {"r", gpgpu::out(r)},
                  {"m_copy", layout(gpgpu::out(m_copy))}});
      expect_same_bits(m_copy, m, "m_copy");
      for (std::size_t e = 0; e < n; ++e) {
        for (int row = 0; row < rows; ++row) {
          double sum = 0, magnitude = 0;
          for (int column = 0; column < columns; ++column) {
            const double term =
                static_cast<double>(host_entry(m, e, row, column, rows, columns, host_row_major)) *
                v[e * static_cast<std::size_t>(columns) + static_cast<std::size_t>(column)];
            sum += term;
            magnitude += std::abs(term);
          }
          // A dot product of `columns` terms: at most `columns` roundings per term.
          const double got = r[e * static_cast<std::size_t>(rows) + static_cast<std::size_t>(row)];
          ASSERT_LE(std::abs(got - sum), gamma(columns) * magnitude)
              << "matrix " << e << " row " << row;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Types, MatrixStorage,
                         ::testing::Values(MatrixCase{"mat2", 2, 2}, MatrixCase{"mat3", 3, 3},
                                           MatrixCase{"mat4", 4, 4}, MatrixCase{"mat2x3", 2, 3},
                                           MatrixCase{"mat3x2", 3, 2}, MatrixCase{"mat4x3", 4, 3}),
                         [](const auto& test_info) { return std::string(test_info.param.type); });

// --- uniforms --------------------------------------------------------------------------------

struct UniformCase {
  const char* type;
  const char* result_scalar;  // the storage type the kernel copies components into
  int rows;                   // components per column
  int columns;                // > 1 for matrices
  bool is_bool;
};

class UniformTypes : public ::testing::TestWithParam<UniformCase> {};

// Copies every component of `uniform T u` and of `uniform T ua[3]` into result[], in GLSL's
// column-major order: result[element * N + column * R + row], element 0 being u.
constexpr const char* kUniformEchoSource = R"(
  layout(local_size_x = 16) in;
  layout(std430, binding = 0) writeonly buffer Result { S result[]; };
  uniform T u;
  uniform T ua[3];
  #if KIND == 0
  #define GET(v, k) (v)
  #elif KIND == 1
  #define GET(v, k) (v)[k]
  #else
  #define GET(v, k) (v)[(k) / R][(k) % R]
  #endif
  void main() {
    uint i = gpgpu_index();
    if (i >= gpgpu_count) return;
    uint element = i / uint(N);
    int k = int(i % uint(N));
    if (element == 0u) {
      result[i] = S(GET(u, k));
    } else {
      result[i] = S(GET(ua[element - 1u], k));
    }
  })";

template <class T>
void run_uniform_case(const UniformCase& param, const std::vector<T>& values) {
  const int n = param.rows * param.columns;
  // KIND picks how GET(v, k) reads component k: 0 scalar, 1 vector, 2 matrix.
  const char* kind = param.columns > 1 ? "2" : param.rows > 1 ? "1" : "0";
  gpgpu::ComputeKernel kernel(ctx(), kUniformEchoSource,
                              {{"T", param.type},
                               {"S", param.result_scalar},
                               {"N", std::to_string(n)},
                               {"R", std::to_string(param.rows)},
                               {"KIND", kind}});
  const std::span<const T> all(values);
  const auto per = static_cast<std::size_t>(n);
  for (const bool row_major : {false, true}) {
    if (row_major && param.columns == 1) continue;  // only matrices have a layout
    SCOPED_TRACE(row_major ? "row-major host data" : "column-major host data");
    auto layout = [&](gpgpu::Arg arg) { return row_major ? gpgpu::row_major(arg) : arg; };
    // result holds int/uint/float according to S; all three are 32-bit words.
    std::vector<T> result(4 * per, poison<T>());
    kernel.run({{"u", layout(all.first(per))},
                {"ua", layout(all.subspan(per, 3 * per))},
                {"result", gpgpu::out(result)}});
    std::vector<T> want(4 * per);
    for (std::size_t e = 0; e < 4; ++e) {
      for (int c = 0; c < param.columns; ++c) {
        for (int r = 0; r < param.rows; ++r) {
          const auto host =
              static_cast<std::size_t>(row_major ? r * param.columns + c : c * param.rows + r);
          T value = values[e * per + host];
          if (param.is_bool) value = value != 0 ? 1 : 0;
          want[e * per + static_cast<std::size_t>(c * param.rows + r)] = value;
        }
      }
    }
    expect_same_bits(result, want, "result");
  }
}

TEST_P(UniformTypes, ScalarAndArrayValuesReachTheKernel) {
  const auto& param = GetParam();
  const auto count = static_cast<std::size_t>(4 * param.rows * param.columns);
  const std::string scalar = param.result_scalar;
  if (param.is_bool) {
    // Any non-zero int is true: mix zeros with arbitrary non-zero values.
    auto values = gpgpu::test::random_ints(count, INT32_MIN + 1, INT32_MAX);
    std::bernoulli_distribution is_false(0.5);
    for (auto& v : values) {
      if (is_false(gpgpu::test::rng())) v = 0;
    }
    run_uniform_case(param, values);
  } else if (scalar == "int") {
    run_uniform_case(param, gpgpu::test::random_ints(count, INT32_MIN + 1, INT32_MAX));
  } else if (scalar == "uint") {
    run_uniform_case(param, gpgpu::test::random_uints(count, 1, UINT32_MAX));
  } else {
    run_uniform_case(param, gpgpu::test::random_floats(count, -1000.0f, 1000.0f));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Types, UniformTypes,
    ::testing::Values(
        UniformCase{"float", "float", 1, 1, false}, UniformCase{"vec2", "float", 2, 1, false},
        UniformCase{"vec3", "float", 3, 1, false}, UniformCase{"vec4", "float", 4, 1, false},
        UniformCase{"int", "int", 1, 1, false}, UniformCase{"ivec2", "int", 2, 1, false},
        UniformCase{"ivec3", "int", 3, 1, false}, UniformCase{"ivec4", "int", 4, 1, false},
        UniformCase{"uint", "uint", 1, 1, false}, UniformCase{"uvec2", "uint", 2, 1, false},
        UniformCase{"uvec3", "uint", 3, 1, false}, UniformCase{"uvec4", "uint", 4, 1, false},
        UniformCase{"bool", "int", 1, 1, true}, UniformCase{"bvec2", "int", 2, 1, true},
        UniformCase{"bvec3", "int", 3, 1, true}, UniformCase{"bvec4", "int", 4, 1, true},
        UniformCase{"mat2", "float", 2, 2, false}, UniformCase{"mat3", "float", 3, 3, false},
        UniformCase{"mat4", "float", 4, 4, false}, UniformCase{"mat2x3", "float", 3, 2, false},
        UniformCase{"mat2x4", "float", 4, 2, false}, UniformCase{"mat3x2", "float", 2, 3, false},
        UniformCase{"mat3x4", "float", 4, 3, false}, UniformCase{"mat4x2", "float", 2, 4, false},
        UniformCase{"mat4x3", "float", 3, 4, false}),
    [](const auto& test_info) { return std::string(test_info.param.type); });

TEST(ComputeKernel, UniformsByValueFromStdArrayAndScalars) {
  gpgpu::ComputeKernel kernel(ctx(), R"(
    layout(local_size_x = 1) in;
    layout(std430, binding = 0) writeonly buffer F { float f[]; };
    layout(std430, binding = 1) writeonly buffer I { int i_out[]; };
    uniform float s;
    uniform vec3 v;
    uniform mat2 m;
    uniform int k;
    uniform uint u;
    void main() {
      f[0] = s; f[1] = v.x; f[2] = v.y; f[3] = v.z;
      f[4] = m[0][0]; f[5] = m[0][1]; f[6] = m[1][0]; f[7] = m[1][1];
      i_out[0] = k; i_out[1] = int(u);
    })");
  const auto r = gpgpu::test::random_floats(8);
  const auto k = gpgpu::test::random_ints(1, INT32_MIN + 1, INT32_MAX)[0];
  const auto u = gpgpu::test::random_uints(1, 1, INT32_MAX)[0];
  std::vector<float> f(8, poison_float());
  std::vector<std::int32_t> i_out(2, poison_int);
  kernel.run({{"s", r[0]},
              {"v", std::array<float, 3>{r[1], r[2], r[3]}},
              {"m", {r[4], r[5], r[6], r[7]}},
              {"k", k},
              {"u", u},
              {"f", gpgpu::out(f)},
              {"i_out", gpgpu::out(i_out)}},
             1);
  expect_same_bits(f, r, "f");
  expect_same_bits(i_out, std::vector<std::int32_t>{k, static_cast<std::int32_t>(u)}, "i_out");
}

// GL reports how many elements of a uniform array are active: Mesa counts only those a
// kernel can reach (w[0..4] of w[8] here: 5), NVIDIA the declared 8. Giving the declared
// length, or just the active elements, both work; fewer than the active ones is an error.
TEST(ComputeKernel, UniformArrayWithSomeElementsActive) {
  gpgpu::ComputeKernel kernel(ctx(), R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) readonly buffer X { float x[]; };
    layout(std430, binding = 1) writeonly buffer Y { float y[]; };
    uniform float w[8];
    void main() {
      uint i = gpgpu_index();
      if (i < gpgpu_count) y[i] = x[i] * w[1] + w[4];
    })");
  std::size_t active = 0;
  for (const auto& v : kernel.variables()) {
    if (v.name == "w") active = static_cast<std::size_t>(v.array_size);
  }
  ASSERT_GE(active, 5u) << "w[4] is used";
  ASSERT_LE(active, 8u);
  RecordProperty("active_elements_of_w", static_cast<int>(active));
  const std::size_t n = 300;
  const auto x = gpgpu::test::random_floats(n);
  for (const std::size_t given : {std::size_t{8}, active}) {
    SCOPED_TRACE(std::to_string(given) + " values given");
    const auto w = gpgpu::test::random_floats(given);
    std::vector<float> y(n, poison_float());
    kernel.run({{"x", x}, {"y", gpgpu::out(y)}, {"w", w}});
    for (std::size_t i = 0; i < n; ++i) {
      const double term = static_cast<double>(x[i]) * w[1];
      const double want = term + w[4];
      // Two roundings (product, sum), or one if fused.
      ASSERT_LE(std::abs(y[i] - want), gamma(2) * (std::abs(term) + std::abs(w[4])))
          << "element " << i;
    }
  }
  const auto too_few = gpgpu::test::random_floats(active - 1);
  std::vector<float> y(n, poison_float());
  const auto y_before = y;
  EXPECT_THROW(kernel.run({{"x", x}, {"y", gpgpu::out(y)}, {"w", too_few}}),
               gpgpu::SizeMismatchError);
  expect_same_bits(y, y_before, "y after the failed run");
}

// --- in / out / inout ------------------------------------------------------------------------

constexpr const char* kDirectionSource = R"(
  layout(local_size_x = 64) in;
  layout(std430, binding = 0) buffer Source { float source_values[]; };
  layout(std430, binding = 1) buffer Target { float target[]; };
  layout(std430, binding = 2) writeonly buffer Seen { float seen[]; };
  void main() {
    uint i = gpgpu_index();
    if (i >= gpgpu_count) return;
    seen[i] = target[i];              // what the kernel found in target before writing it
    target[i] = source_values[i];
    source_values[i] = -source_values[i];  // the kernel writes its input too
  })";

// A Buffer a queued run reads, uploaded right after the run: the run must still read the
// earlier values. NVIDIA's driver (H200, 580.159) let such a glBufferSubData land while the
// dispatch was still queued, so the engine waits for the GPU first (note_gpu_use). Each
// invocation reads x again after a loop of `steps`, so that the run is still going when the
// host uploads (about 1 ms on a GPU; a CPU device finishes before run returns anyway).
TEST(ComputeKernel, AnUploadAfterARunDoesNotChangeWhatTheRunRead) {
  gpgpu::ComputeKernel slow(ctx(), R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) readonly buffer X { float x[]; };
    layout(std430, binding = 1) writeonly buffer Y { float y[]; };
    uniform int steps;
    void main() {
      uint i = gpgpu_index();
      if (i >= gpgpu_count) return;
      float waited = 0.0;
      for (int k = 0; k < steps; ++k) waited += 1.0;
      y[i] = x[i] + (waited < 0.0 ? 1.0 : 0.0);  // x read after the loop; the sum is >= 0
    })");
  const std::size_t n = 4096;
  const int steps = ctx().info().is_software ? 2000 : 400000;
  gpgpu::Buffer x(ctx(), gpgpu::ElementType::Float32, n);
  gpgpu::Buffer y(ctx(), gpgpu::ElementType::Float32, n);
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE(round);
    const auto before = gpgpu::test::random_floats(n, 1, 2);
    const auto after = gpgpu::test::random_floats(n, -2, -1);
    x.upload(before);
    y.upload(std::vector<float>(n, poison_float()));
    (void)y.to_vector<float>();  // idle: every command on them has finished
    slow.run({{"x", x}, {"y", y}, {"steps", steps}}, n);
    x.upload(after);
    const auto read = y.to_vector<float>();
    expect_same_bits(read, before, "what the run read");
    expect_same_bits(x.to_vector<float>(), after, "x after the upload");
  }
}

TEST(ComputeKernel, ConstInputIsNotWrittenBack) {
  gpgpu::ComputeKernel kernel(ctx(), kDirectionSource);
  const std::size_t n = 500;
  const std::vector<float> source_values = gpgpu::test::random_floats(n);
  const auto source_copy = source_values;
  auto target = gpgpu::test::random_floats(n);
  std::vector<float> seen(n, poison_float());
  kernel.run({{"source_values", source_values}, {"target", target}, {"seen", gpgpu::out(seen)}});
  // The kernel negated source_values on the device, but a const host array is input only.
  expect_same_bits(source_values, source_copy, "const source_values");
  expect_same_bits(target, source_copy, "target");

  // gpgpu::in() says the same of a non-const array.
  auto mutable_source = source_copy;
  kernel.run({{"source_values", gpgpu::in(mutable_source)},
              {"target", target},
              {"seen", gpgpu::out(seen)}});
  expect_same_bits(mutable_source, source_copy, "gpgpu::in source_values");
}

TEST(ComputeKernel, InoutIsUploadedAndWrittenBack) {
  gpgpu::ComputeKernel kernel(ctx(), kDirectionSource);
  const std::size_t n = 500;
  const auto source_start = gpgpu::test::random_floats(n);
  const auto target_start = gpgpu::test::random_floats(n);
  auto source_values = source_start;  // non-const: inout by default
  auto target = target_start;
  std::vector<float> seen(n, poison_float());
  kernel.run({{"source_values", source_values},
              {"target", gpgpu::inout(target)},
              {"seen", gpgpu::out(seen)}});
  expect_same_bits(seen, target_start, "seen (target as uploaded)");
  expect_same_bits(target, source_start, "target");
  std::vector<float> negated(n);
  std::transform(source_start.begin(), source_start.end(), negated.begin(),
                 [](float v) { return -v; });
  expect_same_bits(source_values, negated, "source_values written back");
}

TEST(ComputeKernel, OutSkipsTheUpload) {
  gpgpu::ComputeKernel kernel(ctx(), kDirectionSource);
  const std::size_t n = 500;
  const auto source_values = gpgpu::test::random_floats(n, 1.0f, 2.0f);
  const auto target_start = gpgpu::test::random_floats(n, 1.0f, 2.0f);
  auto target = target_start;
  std::vector<float> seen(n, poison_float());
  kernel.run({{"source_values", source_values},
              {"target", gpgpu::out(target)},
              {"seen", gpgpu::out(seen)}});
  expect_same_bits(target, source_values, "target");
  // The device buffer behind an out array starts with whatever the driver gives; the host
  // values were never uploaded, so none of them can be what the kernel saw.
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_NE(bits(seen[i]), bits(target_start[i])) << "element " << i << " was uploaded";
  }
}

// --- sizing the dispatch ---------------------------------------------------------------------

constexpr const char* kDoubleSource = R"(
  layout(local_size_x = 64) in;
  layout(std430, binding = 0) readonly buffer A { float a[]; };
  layout(std430, binding = 1) buffer C { float c[]; };
  void main() {
    uint i = gpgpu_index();
    if (i < gpgpu_count) c[i] = 2.0 * a[i];  // exact: a power-of-two scaling
  })";

TEST(ComputeKernel, DerivedSizeCoversEveryElement) {
  gpgpu::ComputeKernel kernel(ctx(), kDoubleSource);
  for (const std::size_t n :
       {std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{65}, std::size_t{100003}}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto a = gpgpu::test::random_floats(n);
    std::vector<float> c(n, poison_float());
    kernel.run({{"a", a}, {"c", gpgpu::out(c)}});
    std::vector<float> want(n);
    std::transform(a.begin(), a.end(), want.begin(), [](float v) { return 2 * v; });
    expect_same_bits(c, want, "c");
  }
}

TEST(ComputeKernel, ExplicitCountRunsOnlyThatMany) {
  gpgpu::ComputeKernel kernel(ctx(), kDoubleSource);
  const std::size_t n = 1000, count = 601;
  const auto a = gpgpu::test::random_floats(n);
  std::vector<float> c(n, poison_float());  // inout: elements past count keep their poison
  kernel.run({{"a", a}, {"c", gpgpu::inout(c)}}, count);
  std::vector<float> want(n, poison_float());
  std::transform(a.begin(), a.begin() + count, want.begin(), [](float v) { return 2 * v; });
  expect_same_bits(c, want, "c");
}

TEST(ComputeKernel, TwoDimensionalGrid) {
  gpgpu::ComputeKernel kernel(ctx(), R"(
    layout(local_size_x = 8, local_size_y = 4) in;
    layout(std430, binding = 0) writeonly buffer Grid { uint grid[]; };
    uniform uvec2 size;
    uniform uint salt;
    void main() {
      uvec2 p = gl_GlobalInvocationID.xy;
      if (p.x < size.x && p.y < size.y) grid[p.y * size.x + p.x] = (p.x * 65536u + p.y) ^ salt;
    })");
  EXPECT_EQ((kernel.local_size()), (std::array<int, 3>{8, 4, 1}));
  const std::uint32_t width = 37, height = 23;  // neither a multiple of the work group
  const auto salt = gpgpu::test::random_uints(1, 1, UINT32_MAX)[0];
  std::vector<std::uint32_t> grid(width * height, poison_uint);
  kernel.run({{"grid", gpgpu::out(grid)},
              {"size", std::array<std::uint32_t, 2>{width, height}},
              {"salt", salt}},
             gpgpu::Size3{width, height, 1});
  std::vector<std::uint32_t> want(grid.size());
  for (std::uint32_t y = 0; y < height; ++y) {
    for (std::uint32_t x = 0; x < width; ++x) want[y * width + x] = (x * 65536u + y) ^ salt;
  }
  expect_same_bits(grid, want, "grid");
}

TEST(ComputeKernel, RunGroupsRunsExactlyThoseGroups) {
  gpgpu::ComputeKernel kernel(ctx(), R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) buffer Ids { uint ids[]; };
    layout(std430, binding = 1) buffer Count { uint count_seen[]; };
    void main() {
      uint i = gl_GlobalInvocationID.x;
      ids[i] = gl_WorkGroupID.x * 1000u + gl_LocalInvocationID.x;
      if (i == 0u) count_seen[0] = gpgpu_count;
    })");
  const std::size_t groups = 5, local = 64, n = 400;  // 320 invocations into 400 slots
  std::vector<std::uint32_t> ids(n, poison_uint), count_seen(1, poison_uint);
  kernel.run_groups({{"ids", gpgpu::inout(ids)}, {"count_seen", gpgpu::inout(count_seen)}},
                    {groups, 1, 1});
  std::vector<std::uint32_t> want(n, poison_uint);
  for (std::size_t i = 0; i < groups * local; ++i) {
    want[i] = static_cast<std::uint32_t>((i / local) * 1000 + i % local);
  }
  expect_same_bits(ids, want, "ids");
  EXPECT_EQ(count_seen[0], groups * local);
}

// 2^28 work items need 2^21 groups of 128, beyond the 65535 groups GL guarantees in x, so
// gpgpu splits the dispatch into rows and gpgpu_index() flattens them. A storage array of 2^28
// words would exceed llvmpipe's 128 MiB block limit, so each invocation counts itself into
// word i / 32 instead: every word must end up exactly 32 higher, which shows every index ran
// exactly once (a skipped index leaves a word short, a repeated one makes it long).
TEST(ComputeKernel, DispatchBeyondTheGroupCountLimitCoversEveryIndexOnce) {
  gpgpu::ComputeKernel kernel(ctx(), R"(
    layout(local_size_x = 128) in;
    layout(std430, binding = 0) buffer Counts { uint counts[]; };
    void main() {
      uint i = gpgpu_index();
      if (i < gpgpu_count) atomicAdd(counts[i >> 5], 1u);
    })");
  const std::size_t items = std::size_t{1} << 28;
  // GL guarantees only 65535 groups in x (llvmpipe's limit); some GPUs allow 2^31 - 1 and
  // run this in one row. Either way every index must run exactly once.
  const bool split =
      items / 128 > static_cast<std::size_t>(ctx().info().max_compute_work_group_count[0]);
  RecordProperty("dispatch_split_into_rows", split ? "yes" : "no");
  const auto start = gpgpu::test::random_uints(items / 32, 1, 1u << 30);
  auto counts = start;
  kernel.run({{"counts", gpgpu::inout(counts)}}, items);
  for (std::size_t w = 0; w < counts.size(); ++w) {
    ASSERT_EQ(counts[w], start[w] + 32)
        << "word " << w << " (indices " << w * 32 << ".." << w * 32 + 31 << ")";
  }
}

TEST(ComputeKernel, GlobalInvocationIdKernelBeyondTheLimitAsksForGpgpuIndex) {
  gpgpu::ComputeKernel kernel(ctx(), R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) buffer Counts { uint counts[]; };
    void main() {
      if (gl_GlobalInvocationID.x < gpgpu_count) atomicAdd(counts[0], 1u);
    })");
  const auto max_groups = static_cast<std::size_t>(ctx().info().max_compute_work_group_count[0]);
  auto counts = gpgpu::test::random_uints(4, 1, UINT32_MAX);
  const auto before = counts;
  try {
    kernel.run({{"counts", gpgpu::inout(counts)}}, (max_groups + 1) * 64);
    FAIL() << "a dispatch of more groups than the device allows ran without gpgpu_index()";
  } catch (const gpgpu::LimitError& e) {
    EXPECT_NE(std::string(e.what()).find("gpgpu_index"), std::string::npos) << e.what();
  }
  expect_same_bits(counts, before, "counts");
  // Within the limit, the same kernel runs.
  kernel.run({{"counts", gpgpu::inout(counts)}}, 1000);
  EXPECT_EQ(counts[0], before[0] + 1000);
}

// --- Buffers ---------------------------------------------------------------------------------

TEST(ComputeKernel, BuffersChainKernelsOnTheDevice) {
  gpgpu::ComputeKernel add(ctx(), R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) readonly buffer A { float a[]; };
    layout(std430, binding = 1) readonly buffer B { float b[]; };
    layout(std430, binding = 2) writeonly buffer C { float c[]; };
    void main() { uint i = gpgpu_index(); if (i < gpgpu_count) c[i] = a[i] + b[i]; })");
  gpgpu::ComputeKernel scale(ctx(), R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) readonly buffer X { float x[]; };
    layout(std430, binding = 1) writeonly buffer Y { float y[]; };
    uniform float s;
    void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] = x[i] * s; })");
  const std::size_t n = 7777;
  const auto a = gpgpu::test::random_floats(n);
  const auto b = gpgpu::test::random_floats(n);
  const float s = gpgpu::test::random_floats(1, 0.5f, 3.0f)[0];
  auto a_dev = gpgpu::Buffer::from(ctx(), a);
  auto b_dev = gpgpu::Buffer::from(ctx(), b);
  gpgpu::Buffer c_dev(ctx(), gpgpu::ElementType::Float32, n);
  gpgpu::Buffer y_dev(ctx(), gpgpu::ElementType::Float32, n);
  y_dev.upload(std::vector<float>(n, poison_float()));
  add.run({{"a", a_dev}, {"b", b_dev}, {"c", c_dev}});
  scale.run({{"x", c_dev}, {"y", y_dev}, {"s", s}});
  const auto y = y_dev.to_vector<float>();
  ASSERT_EQ(y.size(), n);
  for (std::size_t i = 0; i < n; ++i) {
    // fl(fl(a + b) * s) = (a + b) s (1 + d1)(1 + d2), |d| <= eps32: two roundings.
    const double want = (static_cast<double>(a[i]) + b[i]) * s;
    ASSERT_LE(std::abs(y[i] - want), gamma(2) * std::abs(want)) << "element " << i;
  }
}

TEST(ComputeKernel, BufferUploadAndDownloadWithOffsets) {
  const std::size_t n = 1000;
  const auto whole = gpgpu::test::random_uints(n, 1, UINT32_MAX);
  const auto patch = gpgpu::test::random_uints(100, 1, UINT32_MAX);
  auto buffer = gpgpu::Buffer::from(ctx(), whole);
  EXPECT_EQ(buffer.size(), n);
  EXPECT_EQ(buffer.bytes(), n * 4);
  EXPECT_EQ(buffer.element_type(), gpgpu::ElementType::Uint32);
  buffer.upload(patch, 250);

  auto want = whole;
  std::copy(patch.begin(), patch.end(), want.begin() + 250);
  expect_same_bits(buffer.to_vector<std::uint32_t>(), want, "to_vector");

  std::vector<std::uint32_t> tail(50, poison_uint);
  buffer.download(std::span<std::uint32_t>(tail), 900);
  expect_same_bits(tail, std::vector<std::uint32_t>(want.begin() + 900, want.end() - 50),
                   "download at 900");
  std::vector<std::uint32_t> straddle(20, poison_uint);
  buffer.download(std::span<std::uint32_t>(straddle), 240);
  expect_same_bits(straddle, std::vector<std::uint32_t>(want.begin() + 240, want.begin() + 260),
                   "download across the patch");
}

TEST(ComputeKernel, BufferRangeAndTypeErrorsChangeNothing) {
  const std::size_t n = 64;
  const auto whole = gpgpu::test::random_uints(n, 1, UINT32_MAX);
  auto buffer = gpgpu::Buffer::from(ctx(), whole);
  EXPECT_THROW(buffer.upload(gpgpu::test::random_uints(10, 1, 9), 60), gpgpu::SizeMismatchError);
  EXPECT_THROW(buffer.upload(gpgpu::test::random_uints(1, 1, 9), 65), gpgpu::SizeMismatchError);
  EXPECT_THROW(buffer.upload(gpgpu::test::random_floats(4)), gpgpu::TypeMismatchError);
  std::vector<float> wrong_type(4, poison_float());
  EXPECT_THROW(buffer.download(std::span<float>(wrong_type)), gpgpu::TypeMismatchError);
  std::vector<std::uint32_t> too_long(10, poison_uint);
  EXPECT_THROW(buffer.download(std::span<std::uint32_t>(too_long), 60), gpgpu::SizeMismatchError);
  expect_same_bits(too_long, std::vector<std::uint32_t>(10, poison_uint), "failed download");
  expect_same_bits(buffer.to_vector<std::uint32_t>(), whole, "buffer after failed uploads");
  EXPECT_THROW(gpgpu::Buffer(ctx(), gpgpu::ElementType::Float32, 0), gpgpu::ArgumentError);
  gpgpu::Buffer empty;
  EXPECT_FALSE(empty.valid());
  EXPECT_THROW(empty.upload(whole), gpgpu::Error);
}

TEST(ComputeKernel, BufferOfWrongTypeOrSizeIsRejected) {
  gpgpu::ComputeKernel kernel(ctx(), R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) readonly buffer A { float a[64]; };
    layout(std430, binding = 1) writeonly buffer C { float c[]; };
    void main() { uint i = gpgpu_index(); if (i < 64u) c[i] = a[i] + 1.0; })");
  auto c_dev = gpgpu::Buffer::from(ctx(), std::vector<float>(64, poison_float()));
  auto ints = gpgpu::Buffer::from(ctx(), gpgpu::test::random_ints(64, -9, 9));
  auto short_floats = gpgpu::Buffer::from(ctx(), gpgpu::test::random_floats(10));
  EXPECT_THROW(kernel.run({{"a", ints}, {"c", c_dev}}, 64), gpgpu::TypeMismatchError);
  EXPECT_THROW(kernel.run({{"a", short_floats}, {"c", c_dev}}, 64), gpgpu::SizeMismatchError);
  // The same rules for host arrays: a[64] takes exactly 64 floats.
  std::vector<float> c(64, poison_float());
  EXPECT_THROW(kernel.run({{"a", gpgpu::test::random_floats(63)}, {"c", gpgpu::out(c)}}, 64),
               gpgpu::SizeMismatchError);
  expect_same_bits(c, std::vector<float>(64, poison_float()), "c");
  expect_same_bits(c_dev.to_vector<float>(), std::vector<float>(64, poison_float()), "c_dev");
  // And a correct call works (a + 1 is one rounding).
  const auto a = gpgpu::test::random_floats(64);
  auto a_dev = gpgpu::Buffer::from(ctx(), a);
  kernel.run({{"a", a_dev}, {"c", c_dev}}, 64);
  const auto got = c_dev.to_vector<float>();
  for (std::size_t i = 0; i < 64; ++i) {
    ASSERT_LE(std::abs(got[i] - (a[i] + 1.0)), eps32 * std::abs(a[i] + 1.0)) << "element " << i;
  }
}

// --- program cache and defines ---------------------------------------------------------------

TEST(ComputeKernel, ProgramCacheReusesIdenticalSourcesOnly) {
  // A source no other test uses, so the counts below are this test's alone.
  constexpr const char* source = R"(
    // ProgramCacheReusesIdenticalSourcesOnly
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) buffer C { float c[]; };
    void main() { uint i = gpgpu_index(); if (i < gpgpu_count) c[i] = c[i] * FACTOR; })";
  auto& context = ctx();
  const std::size_t start = context.cached_program_count();
  gpgpu::ComputeKernel first(context, source, {{"FACTOR", "2.0"}});
  EXPECT_EQ(context.cached_program_count(), start + 1);
  gpgpu::ComputeKernel same(context, source, {{"FACTOR", "2.0"}});
  EXPECT_EQ(context.cached_program_count(), start + 1);
  gpgpu::ComputeKernel other(context, source, {{"FACTOR", "4.0"}});
  EXPECT_EQ(context.cached_program_count(), start + 2);

  // Each kernel runs its own program: 2x and 4x.
  const auto values = gpgpu::test::random_floats(100);
  auto doubled = values, quadrupled = values;
  same.run({{"c", doubled}});
  other.run({{"c", quadrupled}});
  for (std::size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(doubled[i], 2 * values[i]) << "element " << i;     // exact: powers of two
    ASSERT_EQ(quadrupled[i], 4 * values[i]) << "element " << i;  // exact: powers of two
  }
}

TEST(ComputeKernel, DefinesReachTheShader) {
  constexpr const char* source = R"(
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) readonly buffer A { float a[]; };
    layout(std430, binding = 1) writeonly buffer C { float c[]; };
    void main() {
      uint i = gpgpu_index();
      if (i >= gpgpu_count) return;
    #ifdef NEGATE
      c[i] = -SCALE * a[i];
    #else
      c[i] = SCALE * a[i];
    #endif
    })";
  const std::size_t n = 333;
  const auto a = gpgpu::test::random_floats(n);
  for (const bool negate : {false, true}) {
    gpgpu::Defines defines = {{"SCALE", "8.0"}};
    if (negate) defines.emplace_back("NEGATE", "");
    gpgpu::ComputeKernel kernel(ctx(), source, defines);
    std::vector<float> c(n, poison_float());
    kernel.run({{"a", a}, {"c", gpgpu::out(c)}});
    std::vector<float> want(n);
    std::transform(a.begin(), a.end(), want.begin(),
                   [&](float v) { return (negate ? -8.0f : 8.0f) * v; });  // exact
    expect_same_bits(c, want, negate ? "negated" : "plain");
  }
}

TEST(ComputeKernel, VariablesDescribeTheKernel) {
  gpgpu::ComputeKernel kernel(ctx(), R"(
    layout(local_size_x = 32) in;
    layout(std430, binding = 0) readonly buffer Points { vec3 points[]; };
    layout(std430, binding = 1) writeonly buffer Out { float lengths[]; };
    uniform mat3 transform;
    void main() {
      uint i = gpgpu_index();
      if (i < gpgpu_count) lengths[i] = length(transform * points[i]);
    })");
  const auto vars = kernel.variables();
  auto find = [&](const std::string& name) -> const gpgpu::KernelVariable* {
    for (const auto& v : vars) {
      if (v.name == name || v.alias == name) return &v;
    }
    return nullptr;
  };
  const auto* points = find("points");
  ASSERT_NE(points, nullptr);
  EXPECT_EQ(points->kind, gpgpu::KernelVariable::Kind::StorageBuffer);
  EXPECT_EQ(points->glsl_type, "vec3");
  EXPECT_EQ(points->components, 3);
  EXPECT_EQ(points->array_size, 0);
  const auto* transform = find("transform");
  ASSERT_NE(transform, nullptr);
  EXPECT_EQ(transform->kind, gpgpu::KernelVariable::Kind::Uniform);
  EXPECT_EQ(transform->components, 9);
  EXPECT_EQ(find("gpgpu_count"), nullptr) << "the library's own uniforms are not listed";
}

}  // namespace
