// ComputeRegisterBlocked: the fast compute kernel.
//
// A work group computes a BM x BN tile of C; each invocation keeps a TM x TN block of it in
// registers. Per k it needs TM + TN operands for TM*TN multiply-adds, so operand traffic per
// multiply-add falls by TM*TN/(TM+TN) against one output per invocation.
//
// On GPUs (MatmulTuning::shared_memory) the run has up to four passes:
//  1. A is transposed into a scratch buffer At (K x M, k-major) and zero-padded to whole
//     block tiles, by a 32x32 shared-memory transpose. This O(n^2) pass (about 3% of the
//     time at n = 4096 on an H100) makes every later load a plain vec4 copy: both shared
//     slices are k-major, so the inner loop reads 4 consecutive rows of A and 4 consecutive
//     columns of B as one vec4 each, and the slices are filled without scattered scalar
//     stores (which cost a factor of three in our measurements, docs/matmul.md);
//  2. B is zero-padded likewise, only when N or K is not a multiple of the block;
//  3. the main kernel: a work group walks k in BK-deep slices, double-buffered in shared
//     memory (the next slice is fetched into registers while the current one is used; one
//     barrier per slice), each invocation accumulating TM x TN outputs as vec4s;
//  4. the padded C is cropped into c, only when M or N is not a multiple of the block.
// All passes count in last_gpu_ns(): the figure is the whole multiplication.
// Without shared memory (llvmpipe) a single kernel reads its operands straight from storage:
// on a CPU shared memory is ordinary memory and every barrier is a coroutine switch. There,
// MatmulTuning::b_texture packs B into an RGBA32F texture first (one O(k n) pass), because
// llvmpipe turns a texel fetch into a vector gather but a storage load whose address
// differs between invocations into a loop over the lanes; A's loads are the same for the
// whole work group when block_m == thread_m, which llvmpipe makes one scalar load.
//
// Edges (direct path): loads past M, N or K read zeros, stores past M or N are skipped.
// vec4 storage views need rows that start on a vec4: A_VEC4 when K % 4 == 0, B_VEC4 when
// N % 4 == 0; otherwise the same kernel loads and stores scalars.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "matmul/matmul_backend.hpp"
#include "matmul/matmul_layouts.hpp"

namespace gpgpu::detail {

namespace {

constexpr const char* direct_source = R"(
#pragma optionNV(unroll all)
layout(local_size_x = THREADS) in;

#ifdef A_VEC4
layout(std430, binding = 0) readonly buffer MatrixA { vec4 a[]; };
#else
layout(std430, binding = 0) readonly buffer MatrixA { float a[]; };
#endif
#if defined(B_TEXTURE)
// B in an RGBA32F texture of K x ceil(N/4) texels, b_texels[row][x] = B[row][4x .. 4x+3]
// (zero past N): on llvmpipe a texel fetch is a vector gather, while a storage load whose
// address differs between invocations is a loop over the lanes.
uniform highp sampler2D b_texels;
#elif defined(B_VEC4)
layout(std430, binding = 1) readonly buffer MatrixB { vec4 b[]; };
#else
layout(std430, binding = 1) readonly buffer MatrixB { float b[]; };
#endif
#ifdef B_VEC4
layout(std430, binding = 2) writeonly buffer MatrixC { vec4 c[]; };
#else
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
#if defined(B_TEXTURE)
  // Columns past N: the texture's zero padding, or (clamped) a real texel whose products
  // land in outputs that are never stored. Both are finite.
  if (row >= K) return vec4(0.0);
  return texelFetch(b_texels, ivec2(min(col >> 2, (N - 1) >> 2), row), 0);
#else
  if (row >= K || col >= N) return vec4(0.0);
#endif
#if defined(B_TEXTURE)
#elif defined(B_VEC4)
  return b[(row * N + col) >> 2];
#else
  int i = row * N + col;
  return vec4(b[i], col + 1 < N ? b[i + 1] : 0.0, col + 2 < N ? b[i + 2] : 0.0,
              col + 3 < N ? b[i + 3] : 0.0);
#endif
}

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

// The main GPU kernel: operands At (K x M) and B (K x N), both zero-padded so that M, N
// are multiples of BM, BN and K of BK; C (M x N) likewise padded. With split-K, work group
// z multiplies slices [z * SLICES, (z + 1) * SLICES) of k and writes its partial product
// into layer z of C (SPLITS layers of M x N), summed afterwards by the reduce pass.
constexpr const char* shared_source = R"(
// fma() is GLSL ES 3.20's; OpenGL ES 3.1 devices get a * b + c (which compilers fuse anyway).
#if __VERSION__ >= 320
#define MAD(a, b, c) fma(a, b, c)
#else
#define MAD(a, b, c) ((a) * (b) + (c))
#endif
#pragma optionNV(unroll all)
layout(local_size_x = THREADS) in;
layout(std430, binding = 0) readonly buffer MatrixAt { vec4 at[]; };
layout(std430, binding = 1) readonly buffer MatrixB { vec4 b[]; };
layout(std430, binding = 2) writeonly buffer MatrixC { vec4 c[]; };
uniform int M;
uniform int N;
uniform int K;
uniform int SLICES;  // BK-deep slices of k per work group (all of them without split-K)

const int BM4 = BM / 4;
const int BN4 = BN / 4;
const int RM = TM / 4;           // vec4 row groups per invocation, BM4 / RM vec4s apart
const int RN = TN / 4;           // vec4 column groups per invocation
const int THREADS_N = BN / TN;
const int A_VEC4S = BK * BM4;    // vec4s per slice of At
const int B_VEC4S = BK * BN4;
const int A_LOADS = (A_VEC4S + THREADS - 1) / THREADS;
const int B_LOADS = (B_VEC4S + THREADS - 1) / THREADS;

shared vec4 slice_a[2][BK][BM4];
shared vec4 slice_b[2][BK][BN4];

void main() {
  int tid = int(gl_LocalInvocationID.x);
  int tx = tid % THREADS_N;
  int ty = tid / THREADS_N;
  int m04 = int(gl_WorkGroupID.y) * BM4;
  int n04 = int(gl_WorkGroupID.x) * BN4;
  int M4 = M / 4;
  int N4 = N / 4;
  int first = int(gl_WorkGroupID.z) * SLICES;          // this group's first slice of k
  int slices = min(SLICES, K / BK - first);
  int layer = int(gl_WorkGroupID.z) * M * N4;          // its partial product in C
  vec4 acc[TM * RN];
  for (int i = 0; i < TM * RN; ++i) acc[i] = vec4(0.0);

  // Each invocation copies vec4s tid, tid + THREADS, ... of a slice: neighbours read
  // neighbouring addresses, and every index below is a constant after unrolling.
  vec4 staged_a[A_LOADS];
  vec4 staged_b[B_LOADS];
  for (int l = 0; l < A_LOADS; ++l) {
    int v = tid + l * THREADS;
    if (v < A_VEC4S) staged_a[l] = at[(first * BK + v / BM4) * M4 + m04 + v % BM4];
  }
  for (int l = 0; l < B_LOADS; ++l) {
    int v = tid + l * THREADS;
    if (v < B_VEC4S) staged_b[l] = b[(first * BK + v / BN4) * N4 + n04 + v % BN4];
  }
  for (int l = 0; l < A_LOADS; ++l) {
    int v = tid + l * THREADS;
    if (v < A_VEC4S) slice_a[0][v / BM4][v % BM4] = staged_a[l];
  }
  for (int l = 0; l < B_LOADS; ++l) {
    int v = tid + l * THREADS;
    if (v < B_VEC4S) slice_b[0][v / BN4][v % BN4] = staged_b[l];
  }
  barrier();

  for (int s = 0; s < slices; ++s) {
    int current = s & 1;
    bool more = s + 1 < slices;
    if (more) {  // fetch the next slice while this one is multiplied
      int k0 = (first + s + 1) * BK;
      for (int l = 0; l < A_LOADS; ++l) {
        int v = tid + l * THREADS;
        if (v < A_VEC4S) staged_a[l] = at[(k0 + v / BM4) * M4 + m04 + v % BM4];
      }
      for (int l = 0; l < B_LOADS; ++l) {
        int v = tid + l * THREADS;
        if (v < B_VEC4S) staged_b[l] = b[(k0 + v / BN4) * N4 + n04 + v % BN4];
      }
    }
    for (int k = 0; k < BK; ++k) {
      vec4 av[RM];
      vec4 bv[RN];
      for (int i = 0; i < RM; ++i) av[i] = slice_a[current][k][ty + i * (BM4 / RM)];
      for (int j = 0; j < RN; ++j) bv[j] = slice_b[current][k][tx + j * (BN4 / RN)];
      for (int i = 0; i < RM; ++i) {
        for (int r = 0; r < 4; ++r) {
          for (int j = 0; j < RN; ++j) {
            acc[(i * 4 + r) * RN + j] = MAD(vec4(av[i][r]), bv[j], acc[(i * 4 + r) * RN + j]);
          }
        }
      }
    }
    // The other buffer was last read before the previous barrier: free to fill.
    if (more) {
      for (int l = 0; l < A_LOADS; ++l) {
        int v = tid + l * THREADS;
        if (v < A_VEC4S) slice_a[current ^ 1][v / BM4][v % BM4] = staged_a[l];
      }
      for (int l = 0; l < B_LOADS; ++l) {
        int v = tid + l * THREADS;
        if (v < B_VEC4S) slice_b[current ^ 1][v / BN4][v % BN4] = staged_b[l];
      }
    }
    barrier();
  }
  for (int i = 0; i < RM; ++i) {
    for (int r = 0; r < 4; ++r) {
      int row = (m04 + ty + i * (BM4 / RM)) * 4 + r;
      for (int j = 0; j < RN; ++j) {
        c[layer + row * N4 + n04 + tx + j * (BN4 / RN)] = acc[(i * 4 + r) * RN + j];
      }
    }
  }
}
)";

// Pass 1: at[kk][m] = a[m][kk] (zero outside M x K), through 32x32 shared tiles (32 x 8
// invocations, 32 x 4 where work groups hold fewer than 256) so that
// both the reads of A and the writes of At are coalesced.
constexpr const char* transpose_pad_source = R"(
layout(local_size_x = 32, local_size_y = ROWS) in;
layout(std430, binding = 0) readonly buffer MatrixA { float a[]; };
layout(std430, binding = 1) writeonly buffer MatrixAt { float at[]; };
uniform int M;   // rows of A
uniform int K;   // columns of A
uniform int MP;  // padded extents of At: KP rows of MP
uniform int KP;
shared float tile[32][33];  // + 1 column: the transposed reads hit distinct banks
void main() {
  int x = int(gl_WorkGroupID.x) * 32 + int(gl_LocalInvocationID.x);  // column of A (k)
  int y0 = int(gl_WorkGroupID.y) * 32;                                // first row of A (m)
  for (int j = int(gl_LocalInvocationID.y); j < 32; j += ROWS) {
    int y = y0 + j;
    tile[j][gl_LocalInvocationID.x] = (y < M && x < K) ? a[y * K + x] : 0.0;
  }
  barrier();
  int m = y0 + int(gl_LocalInvocationID.x);
  for (int j = int(gl_LocalInvocationID.y); j < 32; j += ROWS) {
    int kk = int(gl_WorkGroupID.x) * 32 + j;
    if (kk < KP && m < MP) at[kk * MP + m] = tile[gl_LocalInvocationID.x][j];
  }
}
)";

// Pass 2 (and 4 reversed): copies a ROWS x COLS matrix into or out of a zero-padded one.
constexpr const char* pad_source = R"(
layout(local_size_x = gpgpu_group_size) in;
layout(std430, binding = 0) readonly buffer Source { float src[]; };
layout(std430, binding = 1) writeonly buffer Destination { float dst[]; };
uniform int COLS;      // of the destination (its rows: gpgpu_count / COLS)
uniform int SRC_ROWS;  // of the source; outside it the destination gets zeros
uniform int SRC_COLS;
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  int row = int(i) / COLS;
  int col = int(i) % COLS;
  dst[i] = (row < SRC_ROWS && col < SRC_COLS) ? src[row * SRC_COLS + col] : 0.0;
}
)";

// Split-K's last pass: c[row][col] = the sum of the SPLITS partial products (layers of
// MP x NP), for the M x N entries that exist (cropping the padding as it goes).
constexpr const char* reduce_source = R"(
layout(local_size_x = gpgpu_group_size) in;
layout(std430, binding = 0) readonly buffer Partial { float partial[]; };
layout(std430, binding = 1) writeonly buffer MatrixC { float c[]; };
uniform int N;        // columns of c
uniform int NP;       // columns of a layer
uniform int LAYER;    // floats per layer (MP * NP)
uniform int SPLITS;
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  int row = int(i) / N;
  int col = int(i) % N;
  int at = row * NP + col;
  float sum = 0.0;
  for (int z = 0; z < SPLITS; ++z) sum += partial[z * LAYER + at];
  c[i] = sum;
}
)";

Defines defines_for(MatmulShape shape, const MatmulTuning& t) {
  Defines d{{"BM", std::to_string(t.block_m)},  {"BN", std::to_string(t.block_n)},
            {"BK", std::to_string(t.block_k)},  {"TM", std::to_string(t.thread_m)},
            {"TN", std::to_string(t.thread_n)}, {"THREADS", std::to_string(t.threads())}};
  if (t.b_texture) d.emplace_back("B_TEXTURE", "");
  if (shape.k % 4 == 0) d.emplace_back("A_VEC4", "");
  if (shape.n % 4 == 0) d.emplace_back("B_VEC4", "");
  return d;
}

int round_up(int value, int multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

std::size_t count(int rows, int cols) {
  return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
}

// Whether B (K x N) fits an RGBA32F texture of K x ceil(N/4) on this device.
bool b_fits_texture(const Context& context, MatmulShape shape) {
  const auto max = context.info().max_texture_size;
  return shape.k <= max && (shape.n + 3) / 4 <= max;
}

// B from a texture only where the tuning asks for it and B fits one.
MatmulTuning fitted(const Context& context, MatmulShape shape, MatmulTuning t) {
  t.b_texture = t.b_texture && !t.shared_memory && b_fits_texture(context, shape);
  return t;
}

ComputeKernel compile(const Context& context, const KernelSource& k) {
  return ComputeKernel(context, k.source, k.defines, k.label);
}

}  // namespace

KernelSource register_blocked_kernel(const Context& context, MatmulShape shape,
                                     const MatmulTuning& tuning) {
  const MatmulTuning t = fitted(context, shape, tuning);
  const std::string label = "matmul compute_register_blocked " + t.to_string();
  if (!t.shared_memory) return {direct_source, defines_for(shape, t), label};
  return {shared_source,
          {{"BM", std::to_string(t.block_m)},
           {"BN", std::to_string(t.block_n)},
           {"BK", std::to_string(t.block_k)},
           {"TM", std::to_string(t.thread_m)},
           {"TN", std::to_string(t.thread_n)},
           {"THREADS", std::to_string(t.threads())}},
          label};
}

namespace {

// The llvmpipe path: one kernel over the operands as given (B first packed into a texture
// when the tuning says so and it fits; otherwise read from storage).
class DirectRegisterBlocked final : public MatmulBackend {
 public:
  DirectRegisterBlocked(const Context& context, MatmulShape shape, MatmulTuning tuning)
      : shape_(shape),
        tuning_(fitted(context, shape, tuning)),
        kernel_(compile(context, register_blocked_kernel(context, shape, tuning))) {
    if (tuning_.b_texture) {
      pack_b_.emplace(context, TextureLayout::RowVec4);
      b_texels_ =
          Texture(context, TexelType::Vec4,
                  {static_cast<std::size_t>(shape.k), static_cast<std::size_t>((shape.n + 3) / 4)});
    }
  }

  void run(const Arg& a, const Arg& b, const Arg& c) override {
    const auto groups = [](int extent, int block) {
      return static_cast<std::size_t>((extent + block - 1) / block);
    };
    double pack_ns = 0;
    Args args{{"a", a},
              {"c", c},
              {"M", std::int32_t{shape_.m}},
              {"N", std::int32_t{shape_.n}},
              {"K", std::int32_t{shape_.k}}};
    if (pack_b_) {
      pack_b_->run(b, b_texels_, shape_.k, shape_.n);
      pack_ns = pack_b_->last_gpu_ns();
      args.emplace_back("b_texels", b_texels_);
    } else {
      args.emplace_back("b", b);
    }
    kernel_.run_groups(
        args, Size3{groups(shape_.n, tuning_.block_n), groups(shape_.m, tuning_.block_m), 1});
    last_ns_ = sum_gpu_ns({pack_ns, kernel_.last_gpu_ns()});
  }
  void set_timing(bool enabled) override {
    kernel_.set_timing(enabled);
    if (pack_b_) pack_b_->set_timing(enabled);
  }
  double last_gpu_ns() const override { return last_ns_; }

 private:
  MatmulShape shape_;
  MatmulTuning tuning_;
  ComputeKernel kernel_;
  std::optional<TexturePacker> pack_b_;
  Texture b_texels_;
  double last_ns_ = -1;
};

// The GPU path: transpose-and-pad A, pad B when needed, the shared-memory kernel, then
// crop C or (split-K) sum the partial products into it (see the top of this file). Scratch
// buffers live as long as the plan.
class SharedRegisterBlocked final : public MatmulBackend {
 public:
  SharedRegisterBlocked(const Context& context, MatmulShape shape, const MatmulTuning& t)
      : shape_(shape),
        mp_(round_up(shape.m, t.block_m)),
        np_(round_up(shape.n, t.block_n)),
        kp_(round_up(shape.k, t.block_k)),
        pad_b_(np_ != shape.n || kp_ != shape.k),
        tuning_(t),
        main_(compile(context, register_blocked_kernel(context, shape, t))),
        transpose_(context, transpose_pad_source,
                   {{"ROWS", std::to_string(detail::group_rows_of_16(context.info()) / 2)}},
                   "matmul: transpose and pad A"),
        pad_(context, pad_source, {}, "matmul: pad or crop"),
        at_(context, ElementType::Float32, count(kp_, mp_)) {
    // Split-K: as many groups along k as asked, each with a whole number of slices and none
    // left empty.
    const int slices = kp_ / t.block_k;
    slices_per_split_ = (slices + std::max(t.split_k, 1) - 1) / std::max(t.split_k, 1);
    splits_ = (slices + slices_per_split_ - 1) / slices_per_split_;
    crop_c_ = splits_ == 1 && (mp_ != shape.m || np_ != shape.n);
    if (pad_b_) padded_b_ = Buffer(context, ElementType::Float32, count(kp_, np_));
    if (crop_c_) padded_c_ = Buffer(context, ElementType::Float32, count(mp_, np_));
    if (splits_ > 1) {
      padded_c_ = Buffer(context, ElementType::Float32,
                         count(mp_, np_) * static_cast<std::size_t>(splits_));
      reduce_.emplace(context, reduce_source, Defines{}, "matmul: split-K sum");
    }
  }

  void run(const Arg& a, const Arg& b, const Arg& c) override { start(a, b, c, false); }
  PendingRun run_async(const Arg& a, const Arg& b, const Arg& c) override {
    return start(a, b, c, true);
  }
  void set_timing(bool enabled) override {
    timing_ = enabled;
    for (ComputeKernel* k : {&main_, &transpose_, &pad_}) k->set_timing(enabled);
    if (reduce_) reduce_->set_timing(enabled);
  }
  double last_gpu_ns() const override { return last_ns_; }

 private:
  // Every pass; the last one (which writes c) runs asynchronously when asked, so that a
  // host c comes back while the caller goes on.
  PendingRun start(const Arg& a, const Arg& b, const Arg& c, bool async) {
    double ns = 0;
    bool timed = timing_;
    auto add_time = [&](double t) {
      if (t < 0) timed = false;
      ns += t;
    };
    transpose_.run_groups(
        {{"a", a},
         {"at", at_},
         {"M", std::int32_t{shape_.m}},
         {"K", std::int32_t{shape_.k}},
         {"MP", std::int32_t{mp_}},
         {"KP", std::int32_t{kp_}}},
        Size3{static_cast<std::size_t>(kp_ + 31) / 32, static_cast<std::size_t>(mp_ + 31) / 32, 1});
    add_time(transpose_.last_gpu_ns());
    if (pad_b_) {
      pad_.run({{"src", b},
                {"dst", padded_b_},
                {"COLS", std::int32_t{np_}},
                {"SRC_ROWS", std::int32_t{shape_.k}},
                {"SRC_COLS", std::int32_t{shape_.n}}},
               count(kp_, np_));
      add_time(pad_.last_gpu_ns());
    }
    const bool direct_c = splits_ == 1 && !crop_c_;
    const Arg b_operand = pad_b_ ? Arg(padded_b_) : b;
    const Arg c_target = direct_c ? c : Arg(padded_c_);
    const Args main_args{{"at", at_},
                         {"b", b_operand},
                         {"c", c_target},
                         {"M", std::int32_t{mp_}},
                         {"N", std::int32_t{np_}},
                         {"K", std::int32_t{kp_}},
                         {"SLICES", std::int32_t{slices_per_split_}}};
    const Size3 groups{static_cast<std::size_t>(np_ / tuning_.block_n),
                       static_cast<std::size_t>(mp_ / tuning_.block_m),
                       static_cast<std::size_t>(splits_)};
    PendingRun pending;
    if (direct_c && async) {
      pending = main_.run_groups_async(main_args, groups);
    } else {
      main_.run_groups(main_args, groups);
    }
    add_time(main_.last_gpu_ns());
    if (splits_ > 1) {
      const Args reduce_args{{"partial", padded_c_},
                             {"c", c},
                             {"N", std::int32_t{shape_.n}},
                             {"NP", std::int32_t{np_}},
                             {"LAYER", static_cast<std::int32_t>(count(mp_, np_))},
                             {"SPLITS", std::int32_t{splits_}}};
      const std::size_t items = count(shape_.m, shape_.n);
      if (async) {
        pending = reduce_->run_async(reduce_args, items);
      } else {
        reduce_->run(reduce_args, items);
      }
      add_time(reduce_->last_gpu_ns());
    } else if (crop_c_) {
      const Args crop_args{{"src", padded_c_},
                           {"dst", c},
                           {"COLS", std::int32_t{shape_.n}},
                           {"SRC_ROWS", std::int32_t{mp_}},
                           {"SRC_COLS", std::int32_t{np_}}};
      if (async) {
        pending = pad_.run_async(crop_args, count(shape_.m, shape_.n));
      } else {
        pad_.run(crop_args, count(shape_.m, shape_.n));
      }
      add_time(pad_.last_gpu_ns());
    }
    last_ns_ = timed ? ns : -1;
    return pending;
  }

  MatmulShape shape_;
  int mp_, np_, kp_;
  bool pad_b_, crop_c_ = false;
  int splits_ = 1, slices_per_split_ = 1;
  MatmulTuning tuning_;
  ComputeKernel main_, transpose_, pad_;
  std::optional<ComputeKernel> reduce_;
  Buffer at_, padded_b_, padded_c_;
  bool timing_ = false;
  double last_ns_ = -1;
};

}  // namespace

std::unique_ptr<MatmulBackend> make_compute_register_blocked(const Context& context,
                                                             MatmulShape shape,
                                                             const MatmulTuning& tuning) {
  if (tuning.shared_memory) return std::make_unique<SharedRegisterBlocked>(context, shape, tuning);
  return std::make_unique<DirectRegisterBlocked>(context, shape, tuning);
}

}  // namespace gpgpu::detail
