// ComputeNaive: one output per invocation, both operands read straight from storage.
// The baseline every faster kernel is measured against (seed 003's texture kernel, moved
// to a compute shader).
#include <cstdint>

#include "gpgpu/compute_kernel.hpp"
#include "matmul/matmul_backend.hpp"

namespace gpgpu::detail {

namespace {

constexpr const char* naive_source = R"(
layout(local_size_x = 16, local_size_y = GROUP_ROWS) in;
layout(std430, binding = 0) readonly buffer MatrixA { float a[]; };
layout(std430, binding = 1) readonly buffer MatrixB { float b[]; };
layout(std430, binding = 2) writeonly buffer MatrixC { float c[]; };
uniform int M;
uniform int N;
uniform int K;

void main() {
  int col = int(gl_GlobalInvocationID.x);
  int row = int(gl_GlobalInvocationID.y);
  if (row >= M || col >= N) return;
  float sum = 0.0;
  int a_index = row * K;
  int b_index = col;
  for (int i = 0; i < K; ++i) {
    sum += a[a_index + i] * b[b_index];
    b_index += N;
  }
  c[row * N + col] = sum;
}
)";

class ComputeNaive final : public MatmulBackend {
 public:
  ComputeNaive(const Context& context, MatmulShape shape)
      : shape_(shape),
        kernel_(context, naive_source,
                {{"GROUP_ROWS", std::to_string(detail::group_rows_of_16(context.info()))}},
                "matmul compute_naive") {}

  void run(const Arg& a, const Arg& b, const Arg& c) override {
    // x walks the columns of C so that neighbouring invocations read neighbouring b and
    // write neighbouring c.
    kernel_.run({{"a", a},
                 {"b", b},
                 {"c", c},
                 {"M", std::int32_t{shape_.m}},
                 {"N", std::int32_t{shape_.n}},
                 {"K", std::int32_t{shape_.k}}},
                Size3{static_cast<std::size_t>(shape_.n), static_cast<std::size_t>(shape_.m), 1});
  }
  void set_timing(bool enabled) override { kernel_.set_timing(enabled); }
  double last_gpu_ns() const override { return kernel_.last_gpu_ns(); }

 private:
  MatmulShape shape_;
  ComputeKernel kernel_;
};

}  // namespace

std::unique_ptr<MatmulBackend> make_compute_naive(const Context& context, MatmulShape shape) {
  return std::make_unique<ComputeNaive>(context, shape);
}

}  // namespace gpgpu::detail
