// The compute dispatches that pack matmul operands into textures and gather products back
// into row-major C, for the transform-feedback and fragment methods.
#include "matmul/matmul_layouts.hpp"

#include <cstdint>
#include <string>

#include "gpgpu/error.hpp"
#include "matmul/matmul_backend.hpp"

namespace gpgpu::detail {

namespace {

constexpr const char* pack_source = R"(
layout(local_size_x = 16, local_size_y = GROUP_ROWS) in;
layout(std430, binding = 0) readonly buffer Matrix { float matrix[]; };
#ifdef SCALAR
layout(r32f, binding = 0) writeonly uniform highp image2D texels;
#else
layout(rgba32f, binding = 0) writeonly uniform highp image2D texels;
#endif
uniform int ROWS;
uniform int COLS;

float entry(int row, int col) {
  return (row < ROWS && col < COLS) ? matrix[row * COLS + col] : 0.0;
}

void main() {
  ivec2 texel = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = imageSize(texels);
  if (texel.x >= size.x || texel.y >= size.y) return;
#if defined(SCALAR)
  vec4 value = vec4(entry(texel.y, texel.x), 0.0, 0.0, 0.0);
#elif defined(ROW_VEC4)
  int col = texel.x * 4;
  vec4 value = vec4(entry(texel.y, col), entry(texel.y, col + 1), entry(texel.y, col + 2),
                    entry(texel.y, col + 3));
#else  // TRANSPOSED_VEC4
  int row = texel.x * 4;
  vec4 value = vec4(entry(row, texel.y), entry(row + 1, texel.y), entry(row + 2, texel.y),
                    entry(row + 3, texel.y));
#endif
  imageStore(texels, texel, value);
}
)";

constexpr const char* gather_source = R"(
layout(local_size_x = 16, local_size_y = GROUP_ROWS) in;
layout(std430, binding = 1) writeonly buffer Product { float c[]; };
uniform int M;
uniform int N;
#if defined(PADDED_ROWS)
layout(std430, binding = 0) readonly buffer Source { float source[]; };
uniform int STRIDE;
float product(int row, int col) { return source[row * STRIDE + col]; }
#elif defined(ROW_BLOCK_BUFFERS)
layout(std430, binding = 2) readonly buffer Rows0 { vec4 s0[]; };
layout(std430, binding = 3) readonly buffer Rows1 { vec4 s1[]; };
layout(std430, binding = 4) readonly buffer Rows2 { vec4 s2[]; };
layout(std430, binding = 5) readonly buffer Rows3 { vec4 s3[]; };
uniform int STRIDE;
float product(int row, int col) {
  int i = (row >> 2) * STRIDE + (col >> 2);
  int r = row & 3;
  vec4 v = r == 0 ? s0[i] : r == 1 ? s1[i] : r == 2 ? s2[i] : s3[i];
  return v[col & 3];
}
#elif defined(ROW_BLOCK_ONE)  // one of the four row-block buffers a pass: rows 4i + R
layout(std430, binding = 0) readonly buffer Rows { vec4 rows[]; };
uniform int STRIDE;
uniform int R;
float product(int row, int col) { return rows[(row >> 2) * STRIDE + (col >> 2)][col & 3]; }
#elif defined(SCALAR_TEXTURE)
uniform highp sampler2D t0;
float product(int row, int col) { return texelFetch(t0, ivec2(col, row), 0).r; }
#else  // ROW_BLOCK_TEXTURES
uniform highp sampler2D t0;
uniform highp sampler2D t1;
uniform highp sampler2D t2;
uniform highp sampler2D t3;
float product(int row, int col) {
  ivec2 texel = ivec2(col >> 2, row >> 2);
  int r = row & 3;
  // Samplers cannot be indexed dynamically in OpenGL ES 3.1.
  vec4 v = r == 0 ? texelFetch(t0, texel, 0)
         : r == 1 ? texelFetch(t1, texel, 0)
         : r == 2 ? texelFetch(t2, texel, 0)
                  : texelFetch(t3, texel, 0);
  return v[col & 3];
}
#endif

void main() {
  int col = int(gl_GlobalInvocationID.x);
#if defined(ROW_BLOCK_ONE)
  int row = 4 * int(gl_GlobalInvocationID.y) + R;
#else
  int row = int(gl_GlobalInvocationID.y);
#endif
  if (row < M && col < N) c[row * N + col] = product(row, col);
}
)";

const char* layout_define(TextureLayout layout) {
  switch (layout) {
    case TextureLayout::Scalar:
      return "SCALAR";
    case TextureLayout::RowVec4:
      return "ROW_VEC4";
    case TextureLayout::TransposedVec4:
      return "TRANSPOSED_VEC4";
  }
  return "SCALAR";
}

const char* product_define(ProductLayout layout) {
  switch (layout) {
    case ProductLayout::PaddedRows:
      return "PADDED_ROWS";
    case ProductLayout::RowBlockBuffers:
      return "ROW_BLOCK_BUFFERS";
    case ProductLayout::ScalarTexture:
      return "SCALAR_TEXTURE";
    case ProductLayout::RowBlockTextures:
      return "ROW_BLOCK_TEXTURES";
  }
  return "PADDED_ROWS";
}

Size3 grid(std::size_t cols, std::size_t rows) {
  return Size3{cols, rows, 1};
}

bool has_compute_shaders(const Context& context) {
  return context.info().has_compute_shaders();
}

}  // namespace

TexturePacker::TexturePacker(const Context& context, TextureLayout layout) : layout_(layout) {
  if (has_compute_shaders(context)) {
    kernel_.emplace(
        context, pack_source,
        Defines{{layout_define(layout), ""},
                {"GROUP_ROWS", std::to_string(detail::group_rows_of_16(context.info()))}},
        "matmul operand packing");
  }
}

void TexturePacker::run(const Arg& matrix, Texture& texture, int rows, int cols) {
  if (!kernel_) return pack_on_host(matrix, texture, layout_, rows, cols);
  kernel_->run({{"matrix", matrix},
                {"texels", texture},
                {"ROWS", std::int32_t{rows}},
                {"COLS", std::int32_t{cols}}},
               grid(texture.cols(), texture.rows()));
}

ProductGatherer::ProductGatherer(const Context& context, ProductLayout layout,
                                 std::size_t product_elements)
    : layout_(layout) {
  const auto& info = context.info();
  one_source_a_pass_ =
      layout == ProductLayout::RowBlockBuffers &&
      (info.max_compute_shader_storage_blocks < 5 || info.max_shader_storage_buffer_bindings < 6);
  if (has_compute_shaders(context)) {
    kernel_.emplace(
        context, gather_source,
        Defines{{one_source_a_pass_ ? "ROW_BLOCK_ONE" : product_define(layout), ""},
                {"GROUP_ROWS", std::to_string(detail::group_rows_of_16(context.info()))}},
        "matmul product gather");
  }
  if (one_source_a_pass_ && product_elements > 0) {
    staged_.emplace(context, ElementType::Float32, product_elements);
  }
}

void ProductGatherer::run(const Buffer* const* sources, const Arg& c, int m, int n, int stride) {
  if (!kernel_) return gather_on_host(layout_, sources, nullptr, c, m, n, stride);
  Args args{
      {"c", c}, {"M", std::int32_t{m}}, {"N", std::int32_t{n}}, {"STRIDE", std::int32_t{stride}}};
  if (layout_ == ProductLayout::PaddedRows) {
    args.emplace_back("source", *sources[0]);
  } else if (one_source_a_pass_) {
    return run_a_source_a_pass(sources, c, m, n, stride);
  } else if (layout_ == ProductLayout::RowBlockBuffers) {
    args.emplace_back("s0", *sources[0]);
    args.emplace_back("s1", *sources[1]);
    args.emplace_back("s2", *sources[2]);
    args.emplace_back("s3", *sources[3]);
  } else {
    throw Error("ProductGatherer: not a Buffer gatherer");
  }
  kernel_->run(args, grid(static_cast<std::size_t>(n), static_cast<std::size_t>(m)));
}

// Four passes, each writing the rows of one row-block buffer. A host array would come back
// whole after every pass (and lose the rows of the others): the passes write a Buffer.
void ProductGatherer::run_a_source_a_pass(const Buffer* const* sources, const Arg& c, int m, int n,
                                          int stride) {
  const auto elements = static_cast<std::size_t>(m) * static_cast<std::size_t>(n);
  const bool host = c.kind() != Arg::Kind::DeviceBuffer;
  if (host && (!staged_ || staged_->size() < elements)) {
    throw Error("ProductGatherer: no Buffer of the product's size for a host C");
  }
  for (int r = 0; r < 4 && r < m; ++r) {
    kernel_->run({{"c", host ? Arg(*staged_) : c},
                  {"M", std::int32_t{m}},
                  {"N", std::int32_t{n}},
                  {"STRIDE", std::int32_t{stride}},
                  {"rows", *sources[r]},
                  {"R", std::int32_t{r}}},
                 grid(static_cast<std::size_t>(n), static_cast<std::size_t>((m - r + 3) / 4)));
  }
  if (host) staged_->download(std::span<float>(static_cast<float*>(c.writable_data()), elements));
}

void ProductGatherer::run(const Texture* const* textures, const Arg& c, int m, int n) {
  if (!kernel_) return gather_on_host(layout_, nullptr, textures, c, m, n, n);
  Args args{{"c", c}, {"M", std::int32_t{m}}, {"N", std::int32_t{n}}, {"t0", *textures[0]}};
  if (layout_ == ProductLayout::RowBlockTextures) {
    args.emplace_back("t1", *textures[1]);
    args.emplace_back("t2", *textures[2]);
    args.emplace_back("t3", *textures[3]);
  } else if (layout_ != ProductLayout::ScalarTexture) {
    throw Error("ProductGatherer: not a texture gatherer");
  }
  kernel_->run(args, grid(static_cast<std::size_t>(n), static_cast<std::size_t>(m)));
}

BlockedOperands::BlockedOperands(const Context& context, MatmulShape matrix_shape)
    : shape(matrix_shape),
      m4(ceil4(shape.m)),
      k4(ceil4(shape.k)),
      n4(ceil4(shape.n)),
      packer(context, TextureLayout::RowVec4),
      a(context, TexelType::Vec4, {4 * size(m4), size(k4)}),
      b(context, TexelType::Vec4, {4 * size(k4), size(n4)}) {}

double BlockedOperands::pack(const Arg& a_matrix, const Arg& b_matrix) {
  packer.run(a_matrix, a, shape.m, shape.k);
  const double pack_a = packer.last_gpu_ns();
  packer.run(b_matrix, b, shape.k, shape.n);
  return sum_gpu_ns({pack_a, packer.last_gpu_ns()});
}

double sum_gpu_ns(std::initializer_list<double> times) {
  double total = 0;
  for (double t : times) {
    if (t < 0) return -1;
    total += t;
  }
  return total;
}

}  // namespace gpgpu::detail
