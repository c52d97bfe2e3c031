// ComputeTiled: seed 004's shared-memory tiles. A work group of TILE x TILE invocations
// stages a TILE x TILE block of A and of B in shared memory, so each element fetched from
// storage is used TILE times; every invocation still computes one output.
#include <cstdint>
#include <string>

#include "gpgpu/compute_kernel.hpp"
#include "matmul/matmul_backend.hpp"

namespace gpgpu::detail {

namespace {

constexpr const char* tiled_source = R"(
layout(local_size_x = TILE, local_size_y = TILE) in;
layout(std430, binding = 0) readonly buffer MatrixA { float a[]; };
layout(std430, binding = 1) readonly buffer MatrixB { float b[]; };
layout(std430, binding = 2) writeonly buffer MatrixC { float c[]; };
uniform int M;
uniform int N;
uniform int K;

shared float tile_a[TILE][TILE];
shared float tile_b[TILE][TILE];

void main() {
  int lx = int(gl_LocalInvocationID.x);
  int ly = int(gl_LocalInvocationID.y);
  int col = int(gl_WorkGroupID.x) * TILE + lx;
  int row = int(gl_WorkGroupID.y) * TILE + ly;
  float sum = 0.0;
  // Invocations past the edge of C still load (zeros) and meet every barrier.
  for (int k0 = 0; k0 < K; k0 += TILE) {
    int ka = k0 + lx;
    int kb = k0 + ly;
    tile_a[ly][lx] = (row < M && ka < K) ? a[row * K + ka] : 0.0;
    tile_b[ly][lx] = (kb < K && col < N) ? b[kb * N + col] : 0.0;
    barrier();
    for (int i = 0; i < TILE; ++i) sum += tile_a[ly][i] * tile_b[i][lx];
    barrier();
  }
  if (row < M && col < N) c[row * N + col] = sum;
}
)";

class ComputeTiled final : public MatmulBackend {
 public:
  ComputeTiled(const Context& context, MatmulShape shape, const MatmulTuning& tuning)
      : shape_(shape),
        tile_(tuning.tile),
        kernel_(context, tiled_source, {{"TILE", std::to_string(tuning.tile)}},
                "matmul compute_tiled") {}

  void run(const Arg& a, const Arg& b, const Arg& c) override {
    const auto groups = [this](int extent) {
      return static_cast<std::size_t>((extent + tile_ - 1) / tile_);
    };
    kernel_.run_groups({{"a", a},
                        {"b", b},
                        {"c", c},
                        {"M", std::int32_t{shape_.m}},
                        {"N", std::int32_t{shape_.n}},
                        {"K", std::int32_t{shape_.k}}},
                       Size3{groups(shape_.n), groups(shape_.m), 1});
  }
  void set_timing(bool enabled) override { kernel_.set_timing(enabled); }
  double last_gpu_ns() const override { return kernel_.last_gpu_ns(); }

 private:
  MatmulShape shape_;
  int tile_;
  ComputeKernel kernel_;
};

}  // namespace

std::unique_ptr<MatmulBackend> make_compute_tiled(const Context& context, MatmulShape shape,
                                                  const MatmulTuning& tuning) {
  return std::make_unique<ComputeTiled>(context, shape, tuning);
}

}  // namespace gpgpu::detail
