// The GLSL of the seed samples, shared by the example programs and their tests.
//
// gpgpu.js samples (transform feedback): each vertex-shader run computes one element.
// GPGPUtility sample (fragment shader): each fragment computes one element of a matrix.
#pragma once

namespace seed {

// AddVec: C = A + B, element by element.
inline constexpr const char* add_vec = R"(
// input A
in float A;
// input B
in float B;
// output C
out float C;

// called once per element
void main(void) {
  C = A + B;
})";

// AddMulVec: two outputs from one pass.
inline constexpr const char* add_mul_vec = R"(
in float A;
in float B;
out float C;
out float D;

void main(void) {
  C = A + B;
  D = A * B;
})";

// AddDotVec: vec3 elements; C is a vec3 per element, D a float per element.
inline constexpr const char* add_dot_vec = R"(
in vec3 A;
in vec3 B;
out vec3 C;
out float D;

void main(void) {
  C = A + B;
  D = dot(A, B);
})";

// UniMul: a uniform shared by every element.
inline constexpr const char* uni_mul = R"(
in float A;
uniform float B;
out float C;

void main(void) {
  C = B * A;
})";

// UniMulMat: a uniform mat3 times each vec3 element. GLSL matrices are column-major.
inline constexpr const char* uni_mul_mat = R"(
in vec3 A;
uniform mat3 B;
out vec3 C;

void main(void) {
  C = B * A;
})";

// TexMulMat: C = A B with A (2 x 8) and B (8 x 2) in float textures, one element of C per
// vertex. `zero` is the seeds' trick to set the element count; gpgpu does not need it
// (the count comes from C), but it keeps the seed's code as it was.
inline constexpr const char* tex_mul_mat = R"(
// input zero: its value is not used
in float zero;

// 2-D textures
uniform sampler2D A;
uniform sampler2D B;

// output C
out float C;

void main() {
  // B_sz.y is the number of rows of B, B_sz.x the number of columns.
  ivec2 B_sz = textureSize(B, 0);

  // The row and column of C this vertex computes.
  int row = gl_VertexID / B_sz.x;
  int col = gl_VertexID % B_sz.x;

  // C[row][col] is the dot product of row `row` of A and column `col` of B.
  float sum = 0.0f;
  for (int i = 0; i < B_sz.y; i++) {
    // A[row][i]
    vec4 a = texelFetch(A, ivec2(i, row), 0);
    // B[i][col]
    vec4 b = texelFetch(B, ivec2(col, i), 0);
    // a.r and b.r hold the values.
    sum += a.r * b.r;
  }

  // zero is 0: using it keeps the compiler from removing the input.
  C = sum + zero;
})";

// TexMulMatVec4: B is stored transposed, so that row `col` of the texture is column `col`
// of B; both are vec4 textures and the dot products take four values at a time. This
// version has no `zero` input: the element count comes from C.
inline constexpr const char* tex_mul_mat_vec4 = R"(
uniform sampler2D A;
uniform sampler2D B;

out float C;

void main() {
  // B_sz.y is the number of rows of (transposed) B, B_sz.x its columns of vec4s.
  ivec2 B_sz = textureSize(B, 0);

  int row = gl_VertexID / B_sz.y;
  int col = gl_VertexID % B_sz.y;

  float sum = 0.0f;
  for (int i = 0; i < B_sz.x; i++) {
    // A[row][4i .. 4i+3]
    vec4 a = texelFetch(A, ivec2(i, row), 0);
    // transposed B: row col, columns 4i .. 4i+3
    vec4 b = texelFetch(B, ivec2(i, col), 0);
    sum += dot(a, b);
  }
  C = sum;
})";

// GPGPUtility, initialisation: renders M(i, j) = 1000 i + j (0-based; i the row, j the
// column) into the texture that the squaring pass then reads.
inline constexpr const char* matrix_init = R"(
out float m;

void main() {
  ivec2 ij = gpgpu_coord();  // x: column j, y: row i
  m = float(1000 * ij.y + ij.x);
})";

// GPGPUtility, squaring: R(i, j) = sum over k of M(i, k) M(k, j). One fragment per element
// of R; texelFetch reads texel (column, row) exactly, where the seed's texture2D computed
// texture coordinates k / 128.
inline constexpr const char* matrix_square = R"(
uniform sampler2D m;
out float r;

void main() {
  ivec2 ij = gpgpu_coord();  // x: column j, y: row i
  int n = textureSize(m, 0).x;
  float value = 0.0;
  for (int k = 0; k < n; ++k) {
    value += texelFetch(m, ivec2(k, ij.y), 0).r * texelFetch(m, ivec2(ij.x, k), 0).r;
  }
  r = value;
})";

// The seed's question, answered: two matrices of different shapes, A (m x k) times
// B (k x n). The output grid (the viewport) is m x n, so each fragment computes one C(i, j);
// the loop runs over A's columns, which must equal B's rows. textureSize gives the bounds,
// so one shader serves every shape (GLSL ES 3 allows loops with run-time bounds).
inline constexpr const char* matrix_multiply = R"(
uniform sampler2D A;  // m rows, k columns
uniform sampler2D B;  // k rows, n columns
out float C;          // m rows, n columns

void main() {
  ivec2 ij = gpgpu_coord();  // x: column j of C, y: row i of C
  int k = textureSize(A, 0).x;
  float sum = 0.0;
  for (int t = 0; t < k; ++t) {
    sum += texelFetch(A, ivec2(t, ij.y), 0).r * texelFetch(B, ivec2(ij.x, t), 0).r;
  }
  C = sum;
})";

}  // namespace seed
