// The fragment methods: products rendered into float textures, one fragment per output
// (GPGPUtility's way) or per 4x4 block through 4 render targets.
//
//   FragmentNaive   A and B in R32F textures, one texel of each per multiply-add, C rendered
//                   into an R32F texture of m x n.
//   FragmentPacked  A in RGBA32F texels of 4 consecutive k, B in texels of 4 consecutive
//                   columns; each fragment computes a 4x4 block (64 multiply-adds per 8
//                   fetches) and writes its 4 rows to 4 RGBA32F render targets.
// Both need GL_EXT_color_buffer_float (FragmentKernel throws UnsupportedError without it).
// Operands are packed into textures and the rendered product gathered into row-major C by
// compute dispatches, so Buffers stay on the GPU; the GPU time reported covers all of it.
#include <cstdint>

#include "gpgpu/fragment_kernel.hpp"
#include "matmul/matmul_backend.hpp"
#include "matmul/matmul_layouts.hpp"

namespace gpgpu::detail {

namespace {

constexpr const char* naive_source = R"(
uniform highp sampler2D A;  // m x k
uniform highp sampler2D B;  // k x n
uniform int K;
out float C;
void main() {
  ivec2 at = gpgpu_coord();  // (column, row) of C
  float sum = 0.0;
  for (int i = 0; i < K; ++i) {
    sum += texelFetch(A, ivec2(i, at.y), 0).r * texelFetch(B, ivec2(at.x, i), 0).r;
  }
  C = sum;
}
)";

constexpr const char* packed_main = R"(
layout(location = 0) out vec4 C0;
layout(location = 1) out vec4 C1;
layout(location = 2) out vec4 C2;
layout(location = 3) out vec4 C3;
void main() {
  ivec2 at = gpgpu_coord();  // (column group, row group) of C
  multiply_block(at.x, at.y, C0, C1, C2, C3);
}
)";

class FragmentNaive final : public MatmulBackend {
 public:
  FragmentNaive(const Context& context, MatmulShape shape)
      : shape_(shape),
        pack_(context, TextureLayout::Scalar),
        a_(context, TexelType::Float, {size(shape.m), size(shape.k)}),
        b_(context, TexelType::Float, {size(shape.k), size(shape.n)}),
        product_(context, TexelType::Float, {size(shape.m), size(shape.n)}),
        kernel_(context, naive_source, {}, "matmul fragment_naive"),
        gather_(context, ProductLayout::ScalarTexture) {}

  void run(const Arg& a, const Arg& b, const Arg& c) override {
    pack_.run(a, a_, shape_.m, shape_.k);
    const double pack_a = pack_.last_gpu_ns();
    pack_.run(b, b_, shape_.k, shape_.n);
    const double pack_b = pack_.last_gpu_ns();
    kernel_.run({{"A", a_}, {"B", b_}, {"K", std::int32_t{shape_.k}}, {"C", product_}},
                size(shape_.m), size(shape_.n));
    const Texture* sources[] = {&product_};
    gather_.run(sources, c, shape_.m, shape_.n);
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
  Texture a_, b_, product_;
  FragmentKernel kernel_;
  ProductGatherer gather_;
  double last_ns_ = -1;
};

class FragmentPacked final : public MatmulBackend {
 public:
  FragmentPacked(const Context& context, MatmulShape shape)
      : shape_(shape),
        operands_(context, shape),
        kernel_(context, std::string(matmul_blocked_body_glsl()) + packed_main, {},
                "matmul fragment_packed"),
        gather_(context, ProductLayout::RowBlockTextures) {
    for (auto& rows : rows_)
      rows = Texture(context, TexelType::Vec4, {size(operands_.m4), size(operands_.n4)});
  }

  void run(const Arg& a, const Arg& b, const Arg& c) override {
    const double pack_ns = operands_.pack(a, b);
    kernel_.run({{"A", operands_.a},
                 {"B", operands_.b},
                 {"K4", std::int32_t{operands_.k4}},
                 {"C0", rows_[0]},
                 {"C1", rows_[1]},
                 {"C2", rows_[2]},
                 {"C3", rows_[3]}},
                size(operands_.m4), size(operands_.n4));
    const Texture* sources[] = {&rows_[0], &rows_[1], &rows_[2], &rows_[3]};
    gather_.run(sources, c, shape_.m, shape_.n);
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
  Texture rows_[4];  // render targets: C rows 4y + r for r = 0..3
  FragmentKernel kernel_;
  ProductGatherer gather_;
  double last_ns_ = -1;
};

}  // namespace

std::unique_ptr<MatmulBackend> make_fragment_naive(const Context& context, MatmulShape shape) {
  return std::make_unique<FragmentNaive>(context, shape);
}
std::unique_ptr<MatmulBackend> make_fragment_packed(const Context& context, MatmulShape shape) {
  return std::make_unique<FragmentPacked>(context, shape);
}

}  // namespace gpgpu::detail
