#include "matmul/matmul_split_k.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "matmul/matmul_layouts.hpp"

namespace gpgpu::detail {

namespace {

// Loop iterations one invocation spends outside the k loops (initialising and storing its
// outputs, the edge loops of the packing passes): far below this for every tuning.
constexpr std::int64_t fixed_loop_iterations = 1024;

// Upper bounds on loop iterations per k of each method's main kernel (no loop unrolled).
double register_blocked_iterations_per_k(const MatmulTuning& t) {
  const double rm = t.thread_m / 4.0, rn = t.thread_n / 4.0, tm = t.thread_m;
  if (!t.shared_memory) {
    // Per 4 k: the k loop, A's RM x 4 loads, then per kk of 4 the B loads and the TM x RN
    // multiply-adds.
    return (1 + rm * 5 + 4 * (1 + rn + tm * (1 + rn))) / 4.0;
  }
  const double threads = t.threads();
  const double a_loads = std::ceil(t.block_k * (t.block_m / 4.0) / threads);
  const double b_loads = std::ceil(t.block_k * (t.block_n / 4.0) / threads);
  // Per slice of block_k: the slice loop, the staged loads and stores, and per k the
  // operand loads and the RM x 4 x RN multiply-adds.
  return (1 + 2 * (a_loads + b_loads) + t.block_k * (1 + rm + rn + rm * (1 + 4 * (1 + rn)))) /
         t.block_k;
}

double iterations_per_k(MatmulMethod method, const MatmulTuning& tuning) {
  switch (method) {
    case MatmulMethod::ComputeNaive:
    case MatmulMethod::TransformFeedbackTexture:
    case MatmulMethod::FragmentNaive:
      return 1.0;  // one loop over k
    case MatmulMethod::ComputeTiled:
      return (1.0 + tuning.tile) / tuning.tile;  // tiles of k, TILE steps each
    case MatmulMethod::TransformFeedbackVec4:
      return 0.25;  // one loop over k / 4
    case MatmulMethod::TransformFeedbackBlocked:
    case MatmulMethod::FragmentPacked:
      return 1.0 / 16;  // k / 4 texels, four per iteration (and a short remainder loop)
    case MatmulMethod::ComputeRegisterBlocked:
      return register_blocked_iterations_per_k(tuning);
    case MatmulMethod::HostBlas:  // no shader at all
    case MatmulMethod::Auto:
      break;
  }
  return 1.0;
}

// The k one texture of the method may span (0: no texture holds k).
std::int64_t texture_k_limit(MatmulMethod method, const DeviceInfo& info) {
  switch (method) {
    case MatmulMethod::TransformFeedbackTexture:  // A: m x k, B: k x n
    case MatmulMethod::FragmentNaive:
    case MatmulMethod::TransformFeedbackBlocked:  // B: 4 ceil(k/4) rows
    case MatmulMethod::FragmentPacked:
      return info.max_texture_size;
    case MatmulMethod::TransformFeedbackVec4:  // A and B^T: ceil(k/4) texels wide
      return 4 * info.max_texture_size;
    default:
      return 0;
  }
}

constexpr const char* window_source = R"(
layout(local_size_x = gpgpu_group_size) in;
layout(std430, binding = 0) readonly buffer Source { float src[]; };
layout(std430, binding = 1) writeonly buffer Window { float dst[]; };
uniform uint SRC_ROWS;
uniform uint SRC_COLS;
uniform uint ROW0;
uniform uint COL0;
uniform uint COLS;  // of the window (its rows: gpgpu_count / COLS)
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  uint row = ROW0 + i / COLS;
  uint col = COL0 + i % COLS;
  dst[i] = (row < SRC_ROWS && col < SRC_COLS) ? src[row * SRC_COLS + col] : 0.0;
}
)";

constexpr const char* accumulate_source = R"(
layout(local_size_x = gpgpu_group_size) in;
layout(std430, binding = 0) buffer Sum { float sum[]; };
layout(std430, binding = 1) readonly buffer Part { float part[]; };
void main() {
  uint i = gpgpu_index();
  if (i < gpgpu_count) sum[i] += part[i];
}
)";

class SplitK final : public MatmulBackend {
 public:
  SplitK(const Context& context, MatmulShape shape, int k_pass, std::unique_ptr<MatmulBackend> pass)
      : shape_(shape),
        k_pass_(k_pass),
        pass_(std::move(pass)),
        window_(context, window_source, {}, "matmul split-k window"),
        accumulate_(context, accumulate_source, {}, "matmul split-k accumulate"),
        a_window_(context, ElementType::Float32, size(shape.m) * size(k_pass)),
        b_window_(context, ElementType::Float32, size(k_pass) * size(shape.n)),
        part_(context, ElementType::Float32, size(shape.m) * size(shape.n)),
        sum_(context, ElementType::Float32, size(shape.m) * size(shape.n)) {}

  void run(const Arg& a, const Arg& b, const Arg& c) override {
    Buffer& sum = c.kind() == Arg::Kind::DeviceBuffer ? const_cast<Buffer&>(*c.buffer()) : sum_;
    double gpu_ns = 0;
    for (int k0 = 0; k0 < shape_.k; k0 += k_pass_) {
      fill_window(a, a_window_, shape_.m, shape_.k, 0, k0, shape_.m, k_pass_, gpu_ns);
      fill_window(b, b_window_, shape_.k, shape_.n, k0, 0, k_pass_, shape_.n, gpu_ns);
      Buffer& product = k0 == 0 ? sum : part_;
      pass_->run(Arg(a_window_), Arg(b_window_), Arg(product));
      add_time(gpu_ns, pass_->last_gpu_ns());
      if (k0 == 0) continue;
      accumulate_.run({{"sum", sum}, {"part", part_}}, size(shape_.m) * size(shape_.n));
      add_time(gpu_ns, accumulate_.last_gpu_ns());
    }
    last_ns_ = gpu_ns;
    if (c.kind() == Arg::Kind::HostArray) {
      sum.download(std::span<float>(static_cast<float*>(c.writable_data()), c.count()));
    }
  }
  void set_timing(bool enabled) override {
    pass_->set_timing(enabled);
    window_.set_timing(enabled);
    accumulate_.set_timing(enabled);
  }
  double last_gpu_ns() const override { return last_ns_; }

 private:
  static void add_time(double& total, double ns) { total = total < 0 || ns < 0 ? -1 : total + ns; }

  // window = matrix[row0 .. row0 + rows)[col0 .. col0 + cols), zeros past the matrix's
  // edges: on the GPU for a Buffer, on the host (then uploaded) for a host array.
  void fill_window(const Arg& matrix, Buffer& window, int src_rows, int src_cols, int row0,
                   int col0, int rows, int cols, double& gpu_ns) {
    if (matrix.kind() == Arg::Kind::DeviceBuffer) {
      window_.run({{"src", *matrix.buffer()},
                   {"dst", window},
                   {"SRC_ROWS", static_cast<std::uint32_t>(src_rows)},
                   {"SRC_COLS", static_cast<std::uint32_t>(src_cols)},
                   {"ROW0", static_cast<std::uint32_t>(row0)},
                   {"COL0", static_cast<std::uint32_t>(col0)},
                   {"COLS", static_cast<std::uint32_t>(cols)}},
                  size(rows) * size(cols));
      add_time(gpu_ns, window_.last_gpu_ns());
      return;
    }
    const auto* src = static_cast<const float*>(matrix.data());
    std::vector<float> values(size(rows) * size(cols), 0.0f);
    for (int r = 0; r < rows && row0 + r < src_rows; ++r) {
      const int count = std::min(cols, src_cols - col0);
      std::copy_n(src + size(row0 + r) * size(src_cols) + size(col0), size(count),
                  values.begin() + static_cast<std::ptrdiff_t>(size(r) * size(cols)));
    }
    window.upload(values);
  }

  MatmulShape shape_;
  int k_pass_;
  std::unique_ptr<MatmulBackend> pass_;
  ComputeKernel window_;
  ComputeKernel accumulate_;
  Buffer a_window_, b_window_, part_;
  Buffer sum_;  // the sum, when C is a host array
  double last_ns_ = -1;
};

}  // namespace

int max_k_per_pass(MatmulMethod method, const MatmulTuning& tuning, const DeviceInfo& info) {
  if (method == MatmulMethod::HostBlas) return 0;  // the host's BLAS has no loop cap
  std::int64_t limit = texture_k_limit(method, info);
  if (info.max_loop_iterations > 0) {
    const auto loop_limit = static_cast<std::int64_t>(
        static_cast<double>(info.max_loop_iterations - fixed_loop_iterations) /
        iterations_per_k(method, tuning));
    limit = limit == 0 ? loop_limit : std::min(limit, loop_limit);
  }
  if (limit == 0) return 0;
  limit = std::min<std::int64_t>(limit, 1 << 30) / 64 * 64;  // whole tiles, blocks and vec4s
  return static_cast<int>(std::max<std::int64_t>(limit, 64));
}

std::unique_ptr<MatmulBackend> make_split_k(const Context& context, MatmulShape shape, int k_pass,
                                            std::unique_ptr<MatmulBackend> pass) {
  return std::make_unique<SplitK>(context, shape, k_pass, std::move(pass));
}

}  // namespace gpgpu::detail
