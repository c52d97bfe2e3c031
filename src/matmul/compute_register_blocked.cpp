// ComputeRegisterBlocked: the fast compute kernel.
//
// A work group computes a BM x BN tile of C; each invocation keeps a TM x TN block of it in
// registers. Per k it needs TM + TN operands for TM*TN multiply-adds, so operand traffic per
// multiply-add falls by TM*TN/(TM+TN) against one output per invocation.
//
// With SHARED_TILES (GPUs; MatmulTuning::shared_memory) the work group walks k in steps of
// BK, staging a BM x BK slice of A (transposed, so that 4 consecutive rows of A are one
// vec4) and a BK x BN slice of B in shared memory:
//  - the slices are double-buffered: the next one is fetched from storage into registers
//    while the current one is used, and one barrier per slice suffices;
//  - an invocation's rows are TM/4 groups of 4 placed BM/(TM/4) apart (columns likewise),
//    so neighbouring invocations read neighbouring vec4s of shared memory (no bank
//    conflicts) and write neighbouring vec4s of C (coalesced);
//  - the transposed A slice has one vec4 of padding per row, which makes its scattered
//    scalar stores conflict-free;
//  - every loop touching the accumulators has constant bounds (the #defines), so compilers
//    unroll them and the accumulators live in registers, not in local memory.
// Without it (llvmpipe) each invocation reads its operands straight from storage: on a CPU
// shared memory is ordinary memory and every barrier is a coroutine switch.
//
// Edges: loads past M, N or K read zeros, stores past M or N are skipped. vec4 storage
// views need rows that start on a vec4: A_VEC4 when K % 4 == 0, B_VEC4 when N % 4 == 0;
// otherwise the same kernel loads and stores scalars.
#include <cstdint>
#include <string>

#include "gpgpu/compute_kernel.hpp"
#include "matmul_backend.hpp"

namespace gpgpu::detail {

namespace {

constexpr const char* register_blocked_source = R"(
#pragma optionNV(unroll all)
layout(local_size_x = THREADS) in;

#ifdef A_VEC4
layout(std430, binding = 0) readonly buffer MatrixA { vec4 a[]; };
#else
layout(std430, binding = 0) readonly buffer MatrixA { float a[]; };
#endif
#ifdef B_VEC4
layout(std430, binding = 1) readonly buffer MatrixB { vec4 b[]; };
layout(std430, binding = 2) writeonly buffer MatrixC { vec4 c[]; };
#else
layout(std430, binding = 1) readonly buffer MatrixB { float b[]; };
layout(std430, binding = 2) writeonly buffer MatrixC { float c[]; };
#endif
uniform int M;
uniform int N;
uniform int K;

const int BM4 = BM / 4;        // vec4s across the block tile's rows
const int BN4 = BN / 4;        // vec4s across the block tile's columns
const int RM = TM / 4;         // vec4 row groups per invocation
const int RN = TN / 4;         // vec4 column groups per invocation
const int THREADS_N = BN / TN;

// This invocation's TM x TN outputs: row group i, row r, column group j is
// acc[(i * 4 + r) * RN + j], at row i * (BM / RM) + ty * 4 + r and columns
// j * (BN / RN) + tx * 4 .. + 3 of the block tile.
vec4 acc[TM * RN];

// A[row][col .. col+3], zeros past the edges; col is a multiple of 4.
vec4 load_a(int row, int col) {
  if (row >= M || col >= K) return vec4(0.0);
#ifdef A_VEC4
  return a[(row * K + col) >> 2];
#else
  int i = row * K + col;
  return vec4(a[i], col + 1 < K ? a[i + 1] : 0.0, col + 2 < K ? a[i + 2] : 0.0,
              col + 3 < K ? a[i + 3] : 0.0);
#endif
}

// B[row][col .. col+3], zeros past the edges; col is a multiple of 4.
vec4 load_b(int row, int col) {
  if (row >= K || col >= N) return vec4(0.0);
#ifdef B_VEC4
  return b[(row * N + col) >> 2];
#else
  int i = row * N + col;
  return vec4(b[i], col + 1 < N ? b[i + 1] : 0.0, col + 2 < N ? b[i + 2] : 0.0,
              col + 3 < N ? b[i + 3] : 0.0);
#endif
}

#ifdef SHARED_TILES
const int BK4 = BK / 4;        // vec4s along k in a row of the A slice
const int A_ROW = BM4 + 1;     // + 1 vec4 of padding: conflict-free transposed stores
const int A_SLICE = BK * A_ROW;
const int B_SLICE = BK * BN4;
const int A_VEC4S = BM * BK4;  // vec4s of A per slice
const int B_VEC4S = BK * BN4;
const int A_LOADS = (A_VEC4S + THREADS - 1) / THREADS;
const int B_LOADS = (B_VEC4S + THREADS - 1) / THREADS;

shared vec4 slice_a[2 * A_SLICE];  // A transposed: slice_a[k * A_ROW + m / 4][m % 4]
shared vec4 slice_b[2 * B_SLICE];  // slice_b[k * BN4 + n / 4][n % 4]

// This invocation's share of the next slice, held in registers between fetch and store.
vec4 staged_a[A_LOADS];
vec4 staged_b[B_LOADS];

// Loads the slice starting at k0 from storage into staged_a/staged_b. Each invocation takes
// vec4s tid, tid + THREADS, ... of the slice, so neighbours read neighbouring addresses.
void fetch_slice(int tid, int row0, int col0, int k0) {
  for (int i = 0; i < A_LOADS; ++i) {
    int v = tid + i * THREADS;
    staged_a[i] = (A_VEC4S % THREADS == 0 || v < A_VEC4S)
                      ? load_a(row0 + v / BK4, k0 + (v % BK4) * 4)
                      : vec4(0.0);
  }
  for (int i = 0; i < B_LOADS; ++i) {
    int v = tid + i * THREADS;
    staged_b[i] = (B_VEC4S % THREADS == 0 || v < B_VEC4S)
                      ? load_b(k0 + v / BN4, col0 + (v % BN4) * 4)
                      : vec4(0.0);
  }
}

// Writes the staged slice into shared buffer `which`, A transposed (k-major).
void store_slice(int tid, int which) {
  for (int i = 0; i < A_LOADS; ++i) {
    int v = tid + i * THREADS;
    if (A_VEC4S % THREADS == 0 || v < A_VEC4S) {
      int m = v / BK4;
      int k = (v % BK4) * 4;
      int base = which * A_SLICE + k * A_ROW + (m >> 2);
      for (int j = 0; j < 4; ++j) slice_a[base + j * A_ROW][m & 3] = staged_a[i][j];
    }
  }
  for (int i = 0; i < B_LOADS; ++i) {
    int v = tid + i * THREADS;
    if (B_VEC4S % THREADS == 0 || v < B_VEC4S) slice_b[which * B_SLICE + v] = staged_b[i];
  }
}

void multiply(int tid, int tx, int ty, int row0, int col0) {
  fetch_slice(tid, row0, col0, 0);
  store_slice(tid, 0);
  memoryBarrierShared();
  barrier();
  int slices = (K + BK - 1) / BK;
  for (int s = 0; s < slices; ++s) {
    int current = s & 1;
    // Fetch the next slice into registers while this one is multiplied.
    bool more = s + 1 < slices;
    if (more) fetch_slice(tid, row0, col0, (s + 1) * BK);
    int a_base = current * A_SLICE + ty;
    int b_base = current * B_SLICE + tx;
    for (int k = 0; k < BK; ++k) {
      vec4 av[RM];
      vec4 bv[RN];
      for (int i = 0; i < RM; ++i) av[i] = slice_a[a_base + k * A_ROW + i * (BM4 / RM)];
      for (int j = 0; j < RN; ++j) bv[j] = slice_b[b_base + k * BN4 + j * (BN4 / RN)];
      for (int i = 0; i < RM; ++i) {
        for (int r = 0; r < 4; ++r) {
          for (int j = 0; j < RN; ++j) acc[(i * 4 + r) * RN + j] += av[i][r] * bv[j];
        }
      }
    }
    // The other buffer was last read before the previous barrier, so it is free to fill.
    if (more) store_slice(tid, current ^ 1);
    memoryBarrierShared();
    barrier();
  }
}
#else
// Without shared memory (CPU rasterizers, where it is ordinary memory and barriers are
// costly): each invocation reads its own rows of A and columns of B, 4 k at a time. When
// BM == TM the A addresses are the same for the whole work group, which llvmpipe turns
// into one load and a broadcast.
void multiply(int tid, int tx, int ty, int row0, int col0) {
  for (int k = 0; k < K; k += 4) {
    vec4 av[TM];
    for (int i = 0; i < RM; ++i) {
      for (int r = 0; r < 4; ++r) av[i * 4 + r] = load_a(row0 + i * (BM / RM) + ty * 4 + r, k);
    }
    for (int kk = 0; kk < 4; ++kk) {
      vec4 bv[RN];
      for (int j = 0; j < RN; ++j) bv[j] = load_b(k + kk, col0 + j * (BN / RN) + tx * 4);
      for (int i = 0; i < TM; ++i) {
        for (int j = 0; j < RN; ++j) acc[i * RN + j] += av[i][kk] * bv[j];
      }
    }
  }
}
#endif

void main() {
  int tid = int(gl_LocalInvocationID.x);
  int tx = tid % THREADS_N;
  int ty = tid / THREADS_N;
  int row0 = int(gl_WorkGroupID.y) * BM;
  int col0 = int(gl_WorkGroupID.x) * BN;
  for (int i = 0; i < TM * RN; ++i) acc[i] = vec4(0.0);

  multiply(tid, tx, ty, row0, col0);

  for (int i = 0; i < RM; ++i) {
    for (int r = 0; r < 4; ++r) {
      int row = row0 + i * (BM / RM) + ty * 4 + r;
      if (row >= M) continue;
      for (int j = 0; j < RN; ++j) {
        int col = col0 + j * (BN / RN) + tx * 4;
        vec4 value = acc[(i * 4 + r) * RN + j];
#ifdef B_VEC4
        if (col < N) c[(row * N + col) >> 2] = value;
#else
        for (int q = 0; q < 4; ++q) {
          if (col + q < N) c[row * N + col + q] = value[q];
        }
#endif
      }
    }
  }
}
)";

Defines defines_for(MatmulShape shape, const MatmulTuning& t) {
  Defines d{{"BM", std::to_string(t.block_m)},   {"BN", std::to_string(t.block_n)},
            {"BK", std::to_string(t.block_k)},   {"TM", std::to_string(t.thread_m)},
            {"TN", std::to_string(t.thread_n)},  {"THREADS", std::to_string(t.threads())}};
  if (t.shared_memory) d.emplace_back("SHARED_TILES", "");
  if (shape.k % 4 == 0) d.emplace_back("A_VEC4", "");
  if (shape.n % 4 == 0) d.emplace_back("B_VEC4", "");
  return d;
}

class ComputeRegisterBlocked final : public MatmulBackend {
 public:
  ComputeRegisterBlocked(const Context& context, MatmulShape shape, const MatmulTuning& tuning)
      : shape_(shape),
        tuning_(tuning),
        kernel_(context, register_blocked_source, defines_for(shape, tuning),
                "matmul compute_register_blocked " + tuning.to_string()) {}

  void run(const Arg& a, const Arg& b, const Arg& c) override {
    const auto groups = [](int extent, int block) {
      return static_cast<std::size_t>((extent + block - 1) / block);
    };
    kernel_.run_groups({{"a", a}, {"b", b}, {"c", c}, {"M", std::int32_t{shape_.m}},
                        {"N", std::int32_t{shape_.n}}, {"K", std::int32_t{shape_.k}}},
                       Size3{groups(shape_.n, tuning_.block_n), groups(shape_.m, tuning_.block_m), 1});
  }
  void set_timing(bool enabled) override { kernel_.set_timing(enabled); }
  double last_gpu_ns() const override { return kernel_.last_gpu_ns(); }

 private:
  MatmulShape shape_;
  MatmulTuning tuning_;
  ComputeKernel kernel_;
};

}  // namespace

std::unique_ptr<MatmulBackend> make_compute_register_blocked(const Context& context,
                                                             MatmulShape shape,
                                                             const MatmulTuning& tuning) {
  return std::make_unique<ComputeRegisterBlocked>(context, shape, tuning);
}

}  // namespace gpgpu::detail
