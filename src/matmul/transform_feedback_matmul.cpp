// The transform-feedback methods: gpgpu.js's way of computing in WebGL 2, a vertex shader
// run once per output with its `out` variables captured, operands in textures.
//
//   TransformFeedbackTexture  seed 003's texture kernel: one vertex per entry of C, A and B
//                             in R32F textures, one texel of each per multiply-add.
//   TransformFeedbackVec4     seed 003's speed-up: B transposed, both in RGBA32F textures
//                             holding 4 consecutive k, a vec4 dot product per 2 fetches.
//   TransformFeedbackBlocked  one vertex per 4x4 block of C, captured as 4 vec4 outputs (one
//                             per row, GL_SEPARATE_ATTRIBS): per 4 k, 4 texels of A and 4 of B
//                             for 64 multiply-adds.
// Operands (Buffers or host arrays) are packed into the textures on the GPU, the captured
// product is gathered into row-major C on the GPU; the GPU time reported covers all of it.
#include <cstdint>

#include "gpgpu/transform_feedback_kernel.hpp"
#include "matmul/matmul_backend.hpp"
#include "matmul/matmul_layouts.hpp"

namespace gpgpu::detail {

namespace {

constexpr const char* texture_source = R"(
uniform highp sampler2D A;  // m x k
uniform highp sampler2D B;  // k x n
uniform int K;
uniform int N;
out float C;
void main() {
  int row = gpgpu_index() / N;
  int col = gpgpu_index() % N;
  float sum = 0.0;
  for (int i = 0; i < K; ++i) {
    sum += texelFetch(A, ivec2(i, row), 0).r * texelFetch(B, ivec2(col, i), 0).r;
  }
  C = sum;
}
)";

constexpr const char* vec4_source = R"(
uniform highp sampler2D A;   // m x ceil(k/4): A[row][4i .. 4i+3]
uniform highp sampler2D BT;  // n x ceil(k/4): B[4i .. 4i+3][col], B transposed
uniform int K4;
uniform int N;
out float C;
void main() {
  int row = gpgpu_index() / N;
  int col = gpgpu_index() % N;
  float sum = 0.0;
  for (int i = 0; i < K4; ++i) {
    sum += dot(texelFetch(A, ivec2(i, row), 0), texelFetch(BT, ivec2(i, col), 0));
  }
  C = sum;
}
)";

// Shared with the fragment method FragmentPacked: C[4y .. 4y+3][4x .. 4x+3] from A in
// RGBA texels of 4 consecutive k and B in RGBA texels of 4 consecutive columns (both
// padded with zero texels, so no fetch leaves the textures).
constexpr const char* blocked_body = R"(
uniform highp sampler2D A;  // 4 ceil(m/4) x ceil(k/4)
uniform highp sampler2D B;  // 4 ceil(k/4) x ceil(n/4)
uniform int K4;
// One k-step of 4: 8 texel fetches, 64 multiply-adds.
void multiply_step(int i, int x, int y, inout vec4 c0, inout vec4 c1, inout vec4 c2,
                   inout vec4 c3) {
  vec4 a0 = texelFetch(A, ivec2(i, 4 * y), 0);
  vec4 a1 = texelFetch(A, ivec2(i, 4 * y + 1), 0);
  vec4 a2 = texelFetch(A, ivec2(i, 4 * y + 2), 0);
  vec4 a3 = texelFetch(A, ivec2(i, 4 * y + 3), 0);
  vec4 b0 = texelFetch(B, ivec2(x, 4 * i), 0);
  vec4 b1 = texelFetch(B, ivec2(x, 4 * i + 1), 0);
  vec4 b2 = texelFetch(B, ivec2(x, 4 * i + 2), 0);
  vec4 b3 = texelFetch(B, ivec2(x, 4 * i + 3), 0);
  c0 += a0.x * b0 + a0.y * b1 + a0.z * b2 + a0.w * b3;
  c1 += a1.x * b0 + a1.y * b1 + a1.z * b2 + a1.w * b3;
  c2 += a2.x * b0 + a2.y * b1 + a2.z * b2 + a2.w * b3;
  c3 += a3.x * b0 + a3.y * b1 + a3.z * b2 + a3.w * b3;
}
void multiply_block(int x, int y, out vec4 c0, out vec4 c1, out vec4 c2, out vec4 c3) {
  c0 = vec4(0.0);
  c1 = vec4(0.0);
  c2 = vec4(0.0);
  c3 = vec4(0.0);
  // Four steps per iteration: the loop bound is a uniform, so the compiler cannot unroll
  // it, and one step's 8 fetches alone do not hide their latency in vertex and fragment
  // shaders.
  int i = 0;
  for (; i + 4 <= K4; i += 4) {
    multiply_step(i, x, y, c0, c1, c2, c3);
    multiply_step(i + 1, x, y, c0, c1, c2, c3);
    multiply_step(i + 2, x, y, c0, c1, c2, c3);
    multiply_step(i + 3, x, y, c0, c1, c2, c3);
  }
  for (; i < K4; ++i) multiply_step(i, x, y, c0, c1, c2, c3);
}
)";

constexpr const char* blocked_main = R"(
uniform int N4;
out vec4 C0;
out vec4 C1;
out vec4 C2;
out vec4 C3;
void main() {
  multiply_block(gpgpu_index() % N4, gpgpu_index() / N4, C0, C1, C2, C3);
}
)";

class TransformFeedbackTexture final : public MatmulBackend {
 public:
  TransformFeedbackTexture(const Context& context, MatmulShape shape)
      : shape_(shape),
        pack_(context, TextureLayout::Scalar),
        a_(context, TexelType::Float, {size(shape.m), size(shape.k)}),
        b_(context, TexelType::Float, {size(shape.k), size(shape.n)}),
        product_(context, ElementType::Float32, size(shape.m) * size(shape.n)),
        kernel_(context, texture_source, {}, "matmul transform_feedback_texture"),
        gather_(context, ProductLayout::PaddedRows) {}

  void run(const Arg& a, const Arg& b, const Arg& c) override {
    pack_.run(a, a_, shape_.m, shape_.k);
    const double pack_a = pack_.last_gpu_ns();
    pack_.run(b, b_, shape_.k, shape_.n);
    const double pack_b = pack_.last_gpu_ns();
    kernel_.run({{"A", a_},
                 {"B", b_},
                 {"K", std::int32_t{shape_.k}},
                 {"N", std::int32_t{shape_.n}},
                 {"C", product_}});
    const Buffer* sources[] = {&product_};
    gather_.run(sources, c, shape_.m, shape_.n, shape_.n);
    last_ns_ = sum_gpu_ns({pack_a, pack_b, kernel_.last_gpu_ns(), gather_.last_gpu_ns()});
  }
  void set_timing(bool enabled) override {
    pack_.set_timing(enabled);
    kernel_.set_timing(enabled);
    gather_.set_timing(enabled);
  }
  double last_gpu_ns() const override { return last_ns_; }

 private:
  MatmulShape shape_;
  TexturePacker pack_;
  Texture a_, b_;
  Buffer product_;
  TransformFeedbackKernel kernel_;
  ProductGatherer gather_;
  double last_ns_ = -1;
};

class TransformFeedbackVec4 final : public MatmulBackend {
 public:
  TransformFeedbackVec4(const Context& context, MatmulShape shape)
      : shape_(shape),
        pack_rows_(context, TextureLayout::RowVec4),
        pack_transposed_(context, TextureLayout::TransposedVec4),
        a_(context, TexelType::Vec4, {size(shape.m), size(ceil4(shape.k))}),
        bt_(context, TexelType::Vec4, {size(shape.n), size(ceil4(shape.k))}),
        product_(context, ElementType::Float32, size(shape.m) * size(shape.n)),
        kernel_(context, vec4_source, {}, "matmul transform_feedback_vec4"),
        gather_(context, ProductLayout::PaddedRows) {}

  void run(const Arg& a, const Arg& b, const Arg& c) override {
    pack_rows_.run(a, a_, shape_.m, shape_.k);
    pack_transposed_.run(b, bt_, shape_.k, shape_.n);
    kernel_.run({{"A", a_},
                 {"BT", bt_},
                 {"K4", std::int32_t{ceil4(shape_.k)}},
                 {"N", std::int32_t{shape_.n}},
                 {"C", product_}});
    const Buffer* sources[] = {&product_};
    gather_.run(sources, c, shape_.m, shape_.n, shape_.n);
    last_ns_ = sum_gpu_ns({pack_rows_.last_gpu_ns(), pack_transposed_.last_gpu_ns(),
                           kernel_.last_gpu_ns(), gather_.last_gpu_ns()});
  }
  void set_timing(bool enabled) override {
    pack_rows_.set_timing(enabled);
    pack_transposed_.set_timing(enabled);
    kernel_.set_timing(enabled);
    gather_.set_timing(enabled);
  }
  double last_gpu_ns() const override { return last_ns_; }

 private:
  MatmulShape shape_;
  TexturePacker pack_rows_, pack_transposed_;
  Texture a_, bt_;
  Buffer product_;
  TransformFeedbackKernel kernel_;
  ProductGatherer gather_;
  double last_ns_ = -1;
};

class TransformFeedbackBlocked final : public MatmulBackend {
 public:
  TransformFeedbackBlocked(const Context& context, MatmulShape shape)
      : shape_(shape),
        operands_(context, shape),
        kernel_(context, std::string(blocked_body) + blocked_main, {},
                "matmul transform_feedback_blocked"),
        gather_(context, ProductLayout::RowBlockBuffers,
                static_cast<std::size_t>(shape.m) * static_cast<std::size_t>(shape.n)) {
    for (auto& rows : rows_)
      rows = Buffer(context, ElementType::Float32, 4 * size(operands_.m4) * size(operands_.n4));
  }

  void run(const Arg& a, const Arg& b, const Arg& c) override {
    const double pack_ns = operands_.pack(a, b);
    kernel_.run({{"A", operands_.a},
                 {"B", operands_.b},
                 {"K4", std::int32_t{operands_.k4}},
                 {"N4", std::int32_t{operands_.n4}},
                 {"C0", rows_[0]},
                 {"C1", rows_[1]},
                 {"C2", rows_[2]},
                 {"C3", rows_[3]}});
    const Buffer* sources[] = {&rows_[0], &rows_[1], &rows_[2], &rows_[3]};
    gather_.run(sources, c, shape_.m, shape_.n, operands_.n4);
    last_ns_ = sum_gpu_ns({pack_ns, kernel_.last_gpu_ns(), gather_.last_gpu_ns()});
  }
  void set_timing(bool enabled) override {
    operands_.set_timing(enabled);
    kernel_.set_timing(enabled);
    gather_.set_timing(enabled);
  }
  double last_gpu_ns() const override { return last_ns_; }

 private:
  MatmulShape shape_;
  BlockedOperands operands_;
  Buffer rows_[4];  // C rows 4y + r for r = 0..3, one vec4 per 4x4 block
  TransformFeedbackKernel kernel_;
  ProductGatherer gather_;
  double last_ns_ = -1;
};

}  // namespace

std::unique_ptr<MatmulBackend> make_transform_feedback_texture(const Context& context,
                                                               MatmulShape shape) {
  return std::make_unique<TransformFeedbackTexture>(context, shape);
}
std::unique_ptr<MatmulBackend> make_transform_feedback_vec4(const Context& context,
                                                            MatmulShape shape) {
  return std::make_unique<TransformFeedbackVec4>(context, shape);
}
std::unique_ptr<MatmulBackend> make_transform_feedback_blocked(const Context& context,
                                                               MatmulShape shape) {
  return std::make_unique<TransformFeedbackBlocked>(context, shape);
}

const char* matmul_blocked_body_glsl() {
  return blocked_body;
}

}  // namespace gpgpu::detail
