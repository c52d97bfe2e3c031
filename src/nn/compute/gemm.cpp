// Implicit GEMM kernels for the compute backend (see gemm.hpp).
//
// Shared-memory path (GPUs). A work group owns a BM x BN tile of C and walks its share of k
// in BK-deep slices. Each slice of A (BK x BM) and B (BK x BN) is loaded by all invocations
// as vec4s of four consecutive m (or n) and stored k-major in shared memory, so the inner
// loop reads, per k, TM/4 vec4s of A and TN/4 vec4s of B for TM x TN fused multiply-adds:
// (TM TN)/(TM + TN) FMAs per shared load instead of 1/2. The next slice is loaded into
// registers while the current one is multiplied (one shared buffer, two barriers a slice).
// Shared rows are padded by one vec4 so that k-fast loads (neighbours writing neighbouring k)
// do not all hit one bank.
//
// Direct path (llvmpipe). Shared memory is ordinary memory there and a barrier is a
// coroutine switch, so each invocation reads its operands itself. A work group is one
// SIMD vector of 8 invocations across n and a single BM = TM block of rows, so the A loads
// are the same address for the whole group (llvmpipe makes them one scalar load).
//
// Every k loop is nested in blocks of at most 32768 iterations (llvmpipe ends loops after
// 65535 iterations), and work groups are numbered linearly over a 2-D grid so that no
// dimension exceeds the device's work-group count limit.
#include "gemm.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "gemm_tuning.hpp"
#include "gpgpu/cache.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::nn::detail {

namespace {

constexpr const char* main_source = R"(
#pragma optionNV(unroll all)
layout(local_size_x = THREADS) in;
#if SPLIT > 1
// The result snippet (bindings 2 and up) is the split-K sum's, not this kernel's.
layout(std430, binding = 2) writeonly buffer Partial { float partial[]; };
#endif
const int RM = TM / 4;
const int RN = TN / 4;
const int BM4 = BM / 4;
const int BN4 = BN / 4;
const int THREADS_M = BM / TM;
const int THREADS_N = BN / TN;
int k_end;

#ifdef SHARED
const int A_VEC4S = BK * BM4;
const int B_VEC4S = BK * BN4;
const int A_LOADS = (A_VEC4S + THREADS - 1) / THREADS;
const int B_LOADS = (B_VEC4S + THREADS - 1) / THREADS;
shared vec4 sa[BK][BM4 + 1];
shared vec4 sb[BK][BN4 + 1];
// Which vec4 of a slice load number v fills: k-fast when the operand is contiguous in k.
ivec2 a_slot(int v) {
#ifdef A_K_FAST
  return ivec2(v % BK, v / BK);
#else
  return ivec2(v / BM4, v % BM4);
#endif
}
ivec2 b_slot(int v) {
#ifdef B_K_FAST
  return ivec2(v % BK, v / BK);
#else
  return ivec2(v / BN4, v % BN4);
#endif
}
// Where the operand snippet splits an operand's address arithmetic in two (A_PARTS: a row's
// ivec3 a_part_m(m) and a depth's ivec3 a_part_k(k), combined by load_a_parts; B_PARTS: a
// depth's int b_part_k(k), combined with a column by load_b_parts), a load's four elements
// share one depth part, and each load's rows, fixed for the whole k loop, have theirs made
// once (a_rows). A convolution's im2col then costs an add and a bounds check per element
// instead of four divisions.
#ifdef A_PARTS
// Where A is not k-fast and the work group is a multiple of BM / 4 invocations, every load
// of an invocation fills the same rows (slot v % BM4 with v = tid + l * THREADS): their
// parts are kept once, not once per load (registers an 8-row block needs for its
// accumulators).
#if !defined(A_K_FAST) && THREADS % (BM / 4) == 0
const int A_ROW_SETS = 1;
#else
const int A_ROW_SETS = A_LOADS;
#endif
ivec3 a_rows[4 * A_ROW_SETS];
#endif
// A(m .. m+3, k) (load l's rows) and B(k, n .. n+3), zero past the matrix and the split's k
// range.
vec4 fetch_a(int l, int m, int k) {
  vec4 v = vec4(0.0);
  if (k < k_end) {
#ifdef A_PARTS
    ivec3 depth = a_part_k(k);
#endif
    for (int q = 0; q < 4; ++q) {
      if (m + q >= GM) continue;
#ifdef A_PARTS
      v[q] = load_a_parts(a_rows[4 * (l % A_ROW_SETS) + q], depth);
#else
      v[q] = load_a(m + q, k);
#endif
    }
  }
  return v;
}
vec4 fetch_b(int k, int n) {
  vec4 v = vec4(0.0);
  if (k < k_end) {
#ifdef B_PARTS
    int depth = b_part_k(k);
#endif
    for (int q = 0; q < 4; ++q) {
      if (n + q >= GN) continue;
#ifdef B_PARTS
      v[q] = load_b_parts(depth, n + q);
#else
      v[q] = load_b(k, n + q);
#endif
    }
  }
  return v;
}
#endif

void main() {
  int block = int(gl_WorkGroupID.y) * GRID_X + int(gl_WorkGroupID.x);
  if (block >= BLOCKS_M * BLOCKS_N) return;  // the whole work group leaves together
  int m0 = (block / BLOCKS_N) * BM;
  int n0 = (block % BLOCKS_N) * BN;
  int split = int(gl_WorkGroupID.z);
  int k_begin = split * K_PER_SPLIT;
  k_end = min(GK, k_begin + K_PER_SPLIT);
  int tid = int(gl_LocalInvocationID.x);
  int tx = tid % THREADS_N;
  int ty = tid / THREADS_N;
  vec4 acc[TM * RN];
  for (int i = 0; i < TM * RN; ++i) acc[i] = vec4(0.0);

#ifdef SHARED
  vec4 ra[A_LOADS];
  vec4 rb[B_LOADS];
#ifdef A_PARTS
  for (int l = 0; l < A_ROW_SETS; ++l) {
    int m = m0 + 4 * a_slot(tid + l * THREADS).y;
    for (int q = 0; q < 4; ++q) a_rows[4 * l + q] = a_part_m(m + q);
  }
#endif
  for (int l = 0; l < A_LOADS; ++l) {
    int v = tid + l * THREADS;
    if (v < A_VEC4S) {
      ivec2 s = a_slot(v);
      ra[l] = fetch_a(l, m0 + 4 * s.y, k_begin + s.x);
    }
  }
  for (int l = 0; l < B_LOADS; ++l) {
    int v = tid + l * THREADS;
    if (v < B_VEC4S) {
      ivec2 s = b_slot(v);
      rb[l] = fetch_b(k_begin + s.x, n0 + 4 * s.y);
    }
  }
  for (int k0 = k_begin; k0 < k_end; k0 += BK) {
    memoryBarrierShared();
    barrier();  // the previous slice has been used
    for (int l = 0; l < A_LOADS; ++l) {
      int v = tid + l * THREADS;
      if (v < A_VEC4S) {
        ivec2 s = a_slot(v);
        sa[s.x][s.y] = ra[l];
      }
    }
    for (int l = 0; l < B_LOADS; ++l) {
      int v = tid + l * THREADS;
      if (v < B_VEC4S) {
        ivec2 s = b_slot(v);
        sb[s.x][s.y] = rb[l];
      }
    }
    memoryBarrierShared();
    barrier();
    if (k0 + BK < k_end) {  // fetch the next slice while this one is multiplied
      for (int l = 0; l < A_LOADS; ++l) {
        int v = tid + l * THREADS;
        if (v < A_VEC4S) {
          ivec2 s = a_slot(v);
          ra[l] = fetch_a(l, m0 + 4 * s.y, k0 + BK + s.x);
        }
      }
      for (int l = 0; l < B_LOADS; ++l) {
        int v = tid + l * THREADS;
        if (v < B_VEC4S) {
          ivec2 s = b_slot(v);
          rb[l] = fetch_b(k0 + BK + s.x, n0 + 4 * s.y);
        }
      }
    }
    for (int kk = 0; kk < BK; ++kk) {
      vec4 av[RM];
      vec4 bv[RN];
      for (int i = 0; i < RM; ++i) av[i] = sa[kk][ty + i * THREADS_M];
      for (int j = 0; j < RN; ++j) bv[j] = sb[kk][tx + j * THREADS_N];
      for (int i = 0; i < RM; ++i) {
        for (int r = 0; r < 4; ++r) {
          for (int j = 0; j < RN; ++j) {
            acc[(i * 4 + r) * RN + j] = MAD(vec4(av[i][r]), bv[j], acc[(i * 4 + r) * RN + j]);
          }
        }
      }
    }
  }
#else
  for (int kb = k_begin; kb < k_end; kb += 32768) {
    int ke = min(k_end, kb + 32768);
    for (int k = kb; k < ke; ++k) {
      vec4 av[RM];
      vec4 bv[RN];
      // Rows and columns past the matrix read a valid element instead (clamped): their
      // products land in outputs that are never stored, and the loop needs no branches.
      for (int i = 0; i < RM; ++i) {
        for (int r = 0; r < 4; ++r) av[i][r] = load_a(min(m0 + 4 * (ty + i * THREADS_M) + r, GM - 1), k);
      }
      for (int j = 0; j < RN; ++j) {
        for (int q = 0; q < 4; ++q) bv[j][q] = load_b(k, min(n0 + 4 * (tx + j * THREADS_N) + q, GN - 1));
      }
      for (int i = 0; i < RM; ++i) {
        for (int r = 0; r < 4; ++r) {
          for (int j = 0; j < RN; ++j) {
            acc[(i * 4 + r) * RN + j] = MAD(vec4(av[i][r]), bv[j], acc[(i * 4 + r) * RN + j]);
          }
        }
      }
    }
  }
#endif

  for (int i = 0; i < RM; ++i) {
#if defined(STORE_ROWS) && SPLIT == 1
    // An invocation's rows come in runs of 4 that start at a multiple of 4.
    int m4 = m0 + 4 * (ty + i * THREADS_M);
    if (m4 >= GM) continue;
    for (int j = 0; j < RN; ++j) {
      int n = n0 + 4 * (tx + j * THREADS_N);
      for (int q = 0; q < 4; ++q) {
        if (n + q >= GN) continue;
        store_rows(m4, n + q, vec4(acc[(i * 4) * RN + j][q], acc[(i * 4 + 1) * RN + j][q],
                                   acc[(i * 4 + 2) * RN + j][q], acc[(i * 4 + 3) * RN + j][q]));
      }
    }
#else
    for (int r = 0; r < 4; ++r) {
      int m = m0 + 4 * (ty + i * THREADS_M) + r;
      if (m >= GM) continue;
      for (int j = 0; j < RN; ++j) {
        int n = n0 + 4 * (tx + j * THREADS_N);
        vec4 v = acc[(i * 4 + r) * RN + j];
        for (int q = 0; q < 4; ++q) {
          if (n + q >= GN) continue;
#if SPLIT > 1
          partial[(split * GM + m) * GN + n + q] = v[q];
#else
          store_c(m, n + q, v[q]);
#endif
        }
      }
    }
#endif
  }
}
)";

// Split-K: adds the partial sums of each (m, n) in split order and stores the result.
constexpr const char* reduce_source = R"(
layout(local_size_x = gpgpu_group_size) in;
// The operands' bindings (0 and 1) are free here: OpenGL ES 3.1 guarantees only 4.
layout(std430, binding = 0) readonly buffer Partial { float partial[]; };
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
#ifdef STORE_ROWS
  // One invocation per 4 rows of a column.
  int m = 4 * (int(i) / GN);
  int n = int(i) - m / 4 * GN;
  vec4 sum = vec4(0.0);
  for (int r = 0; r < 4; ++r) {
    if (m + r >= GM) break;
    for (int s = 0; s < SPLIT; ++s) sum[r] += partial[(s * GM + m + r) * GN + n];
  }
  store_rows(m, n, sum);
#else
  int m = int(i) / GN;
  int n = int(i) - m * GN;
  float sum = 0.0;
  for (int s = 0; s < SPLIT; ++s) sum += partial[(s * GM + m) * GN + n];
  store_c(m, n, sum);
#endif
}
)";

// Split-K over more than wide_split splits (a first layer's weight gradient: a few hundred
// outputs summed over every position of the batch): one work group per output, each
// invocation adding every 64th partial in split order, then a tree in shared memory. One
// invocation looping over all of them would leave the GPU nearly idle.
constexpr int wide_split = 128;
constexpr const char* wide_reduce_source = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Partial { float partial[]; };
shared float lane_sums[64];
void main() {
  int o = int(gl_WorkGroupID.y) * REDUCE_GRID_X + int(gl_WorkGroupID.x);
  int lane = int(gl_LocalInvocationID.x);
  int m = o / GN;
  int n = o - m * GN;
  float sum = 0.0;
  if (o < GM * GN) {
    for (int s = lane; s < SPLIT; s += 64) sum += partial[(s * GM + m) * GN + n];
  }
  lane_sums[lane] = sum;
  for (int width = 32; width > 0; width /= 2) {
    memoryBarrierShared();
    barrier();
    if (lane < width) lane_sums[lane] += lane_sums[lane + width];
  }
  if (lane == 0 && o < GM * GN) store_c(m, n, lane_sums[0]);
}
)";

bool wide_reduce(const GemmSource& source, const GemmTiling& t) {
  return t.split > wide_split && !source.store_rows;
}

// The wide split-K sum's work groups: one per output.
std::pair<std::size_t, std::size_t> wide_reduce_grid(const DeviceInfo& info, GemmShape s) {
  return linear_grid(info, static_cast<std::size_t>(s.m) * static_cast<std::size_t>(s.n));
}

int round_up_pow2(int v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

// Splits of k that bring the work groups to about `target`, keeping at least 4 slices of
// BK per split, at most 512 splits (a weight gradient of a first layer, 26 x 32 outputs
// summed over batch x 784 positions, is a single tile: at 128 splits, one work group per
// SM walked 98 slices, 211 us at batch 256 on an H200), and at most 60000 slices per split.
int choose_split(GemmShape s, const GemmTiling& t, int target) {
  const int blocks = ceil_div(s.m, t.bm) * ceil_div(s.n, t.bn);
  int split = std::clamp(ceil_div(target, blocks), 1, 512);
  split = std::min(split, std::max(1, s.k / (4 * t.bk)));
  split = std::max(split, ceil_div(s.k, 60000 * t.bk));
  return split;
}

// Estimated cost of a tiling (lower is better): padded work over register reuse and over
// how much of a large GPU the work groups can occupy.
double estimated_cost(GemmShape s, const GemmTiling& t) {
  const double padded = static_cast<double>(ceil_div(s.m, t.bm) * t.bm) *
                        static_cast<double>(ceil_div(s.n, t.bn) * t.bn) * static_cast<double>(s.k);
  const double reuse = static_cast<double>(t.tm * t.tn) / static_cast<double>(t.tm + t.tn) / 4.0;
  const double groups = static_cast<double>(ceil_div(s.m, t.bm) * ceil_div(s.n, t.bn) * t.split);
  const double fill = std::min(1.0, groups * t.threads() / 65536.0);
  const double split_traffic = t.split > 1 ? 2.0 * t.split * s.m * s.n * 8.0 : 0.0;
  return padded / (reuse * fill) + split_traffic;
}

// Block shapes of the shared-memory kernel: {bm, bn, tm, tn}.
constexpr int shared_blocks[][4] = {
    {128, 64, 8, 8}, {64, 64, 8, 8},  {64, 64, 8, 4},  {64, 64, 4, 4},
    {128, 32, 8, 4}, {64, 32, 4, 4},  {32, 64, 4, 4},  {128, 128, 8, 8},
    {64, 128, 8, 8}, {32, 32, 4, 4},  {128, 16, 8, 4}, {16, 128, 4, 8},
    {32, 128, 4, 8}, {256, 32, 8, 4}, {128, 64, 4, 8}, {64, 16, 4, 4}};

// Bytes of shared memory the shared-memory kernel declares: sa and sb, BK rows of BM / 4 + 1
// and BN / 4 + 1 vec4s.
std::int64_t shared_bytes(const GemmTiling& t) {
  return std::int64_t{16} * t.bk * (t.bm / 4 + 1 + t.bn / 4 + 1);
}

// The tiling's work group and shared memory are within the device's limits.
bool fits(const DeviceInfo& info, const GemmTiling& t) {
  const std::int64_t threads = t.threads();
  if (threads > info.max_compute_work_group_invocations ||
      threads > info.max_compute_work_group_size[0]) {
    return false;
  }
  return !t.shared || shared_bytes(t) <= info.max_compute_shared_memory_size;
}

// A block shape with the slice depth and split of k a shape gets: slices of 16 for a deep k,
// of 8 where 16 would not fit in the device's shared memory (a 128 x 128 block at OpenGL ES
// 3.1's 16 KB). Nothing when the block does not fit the device.
std::optional<GemmTiling> shared_tiling(const DeviceInfo& info, GemmShape s,
                                        const int (&block)[4]) {
  GemmTiling t;
  t.bm = block[0];
  t.bn = block[1];
  t.tm = block[2];
  t.tn = block[3];
  t.bk = s.k >= 256 ? 16 : 8;
  if (t.bk == 16 && shared_bytes(t) > info.max_compute_shared_memory_size) t.bk = 8;
  t.shared = true;
  t.split = choose_split(s, t, 512);
  if (!fits(info, t)) return std::nullopt;
  return t;
}

// A convolution's candidates (candidate_tilings): no block wider than the padded n where a
// narrower one fits (a 16 x 128 block for a weight gradient of 64 filters won its tuning on an
// H200 and then trained at 87-95k images/s, the cost model's first choices at 148k; most
// likely timed at another clock than its rivals, which gemm_tuning.hpp's rounds now catch), and
// 4-row blocks first, each part in the cost model's order.
void fit_to_convolution(std::vector<GemmTiling>& list, GemmShape s) {
  const int width = std::max(16, round_up_pow2(s.n));
  const auto wide = [&](const GemmTiling& t) { return t.bn > width; };
  if (!std::all_of(list.begin(), list.end(), wide)) std::erase_if(list, wide);
  std::stable_partition(list.begin(), list.end(), [](const GemmTiling& t) { return t.tm == 4; });
}

std::vector<GemmTiling> shared_candidates(const DeviceInfo& info, GemmShape s,
                                          bool computed_loads) {
  std::vector<GemmTiling> list;
  for (const auto& block : shared_blocks) {
    const auto t = shared_tiling(info, s, block);
    if (!t || t->threads() < 32) continue;
    if (t->bm > 2 * std::max(16, round_up_pow2(s.m)) ||
        t->bn > 2 * std::max(16, round_up_pow2(s.n))) {
      continue;
    }
    list.push_back(*t);
  }
  std::stable_sort(list.begin(), list.end(), [&](const GemmTiling& a, const GemmTiling& b) {
    return estimated_cost(s, a) < estimated_cost(s, b);
  });
  if (computed_loads) fit_to_convolution(list, s);
  return list;
}

GemmTiling direct_tiling(GemmShape s) {
  GemmTiling t;
  t.shared = false;
  // One SIMD vector of 8 invocations along m, each 4 rows by up to 16 columns: per k, 4
  // loads that differ between invocations and up to 16 the same for all (one scalar load
  // each). Measured on llvmpipe against 16 x 4 blocks along n and 4 x 8: 10-40% faster.
  // GPGPU_NN_DIRECT="tm,tn,lanes_m,lanes_n" overrides it (for tuning experiments).
  int lanes_m = 8, lanes_n = 1;
  t.tm = 4;
  t.tn = std::min(16, (s.n + 3) / 4 * 4);
  if (const char* env = std::getenv("GPGPU_NN_DIRECT")) {
    std::sscanf(env, "%d,%d,%d,%d", &t.tm, &t.tn, &lanes_m, &lanes_n);
  }
  t.bm = t.tm * lanes_m;
  t.bn = t.tn * lanes_n;
  t.bk = 8;
  const int blocks = ceil_div(s.m, t.bm) * ceil_div(s.n, t.bn);
  t.split = blocks >= 8 ? 1 : std::clamp(std::min(8 / blocks, s.k / 1024), 1, 8);
  t.split = std::max(t.split, ceil_div(s.k, 60000 * 16));
  return t;
}

}  // namespace

std::string GemmTiling::to_string() const {
  return fmt::format("{} {}x{}x{} thread {}x{} split {}", shared ? "shared" : "direct", bm, bn, bk,
                     tm, tn, split);
}

const char* const mad_glsl = R"(
// fma() is GLSL ES 3.20's; OpenGL ES 3.1 devices get a * b + c (which compilers fuse anyway).
#if __VERSION__ >= 320
#define MAD(a, b, c) fma(a, b, c)
#else
#define MAD(a, b, c) ((a) * (b) + (c))
#endif
)";

int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

std::pair<std::size_t, std::size_t> linear_grid(const DeviceInfo& info, std::size_t groups) {
  const auto max_x =
      static_cast<std::size_t>(std::min<std::int64_t>(info.max_compute_work_group_count[0], 65535));
  const std::size_t grid_x = std::min(groups, max_x);
  return {grid_x, (groups + grid_x - 1) / grid_x};
}

bool shared_tiles(const DeviceInfo& info, const BackendOptions& options) {
  using K = BackendOptions::Kernels;
  return options.kernels == K::SharedMemory || (options.kernels == K::Auto && !info.is_software);
}

std::vector<GemmTiling> candidate_tilings(const DeviceInfo& info, GemmShape shape, bool shared,
                                          bool computed_loads) {
  auto list = shared ? shared_candidates(info, shape, computed_loads) : std::vector<GemmTiling>{};
  // Direct loads need 8 invocations and no shared memory: what no shared block fits runs so.
  if (list.empty()) list.push_back(direct_tiling(shape));
  return list;
}

std::optional<GemmTiling> fitted_tiling(const DeviceInfo& info, GemmShape shape,
                                        const GemmTiling& blocks) {
  for (const auto& block : shared_blocks) {
    if (blocks.shared && blocks.bm == block[0] && blocks.bn == block[1] && blocks.tm == block[2] &&
        blocks.tn == block[3]) {
      return shared_tiling(info, shape, block);
    }
  }
  return std::nullopt;
}

// GPGPU_NN_BLOCKS="bm,bn,tm,tn": the shared-memory kernels' block for every GEMM it fits
// (fitted_tiling), instead of a tuned or heuristic one; for tests of every block shape and
// for tuning experiments.
std::optional<GemmTiling> forced_blocks(const DeviceInfo& info, GemmShape shape, bool shared) {
  const char* env = std::getenv("GPGPU_NN_BLOCKS");
  if (env == nullptr || !shared) return std::nullopt;
  GemmTiling blocks;
  if (std::sscanf(env, "%d,%d,%d,%d", &blocks.bm, &blocks.bn, &blocks.tm, &blocks.tn) != 4) {
    throw ArgumentError(fmt::format("GPGPU_NN_BLOCKS={}: expected bm,bn,tm,tn", env));
  }
  return fitted_tiling(info, shape, blocks);
}

struct Gemm::Compiled {
  GemmTiling tiling;
  ComputeKernel main;
  std::optional<ComputeKernel> reduce;
  Buffer partial;
  std::size_t grid_x = 1, grid_y = 1;

  void set_timing(bool on) {
    main.set_timing(on);
    if (reduce) reduce->set_timing(on);
  }
  // Both kernels' last run; -1 when either has no reading.
  double last_gpu_ns() const {
    const double ns = main.last_gpu_ns();
    if (!reduce) return ns;
    const double reduce_ns = reduce->last_gpu_ns();
    return ns < 0 || reduce_ns < 0 ? -1 : ns + reduce_ns;
  }
};

Gemm::Gemm(const Context& context, GemmShape shape, GemmSource source,
           const BackendOptions& options, std::string label)
    : context_(&context), shape_(shape), source_(std::move(source)), label_(std::move(label)) {
  if (shape.m <= 0 || shape.n <= 0 || shape.k <= 0) {
    throw ArgumentError(fmt::format("{}: empty GEMM {}x{}x{}", label_, shape.m, shape.n, shape.k));
  }
  using K = BackendOptions::Kernels;
  shared_ = shared_tiles(context.info(), options);
  if (const auto forced = forced_blocks(context.info(), shape, shared_)) {
    compiled_ = build(*forced);
    return;
  }
  bool far_sibling = false;
  if (const auto known = known_tiling(&far_sibling)) {
    try {
      compiled_ = build(*known);
      if (!far_sibling) return;
      sibling_ = *known;  // runs until a tuning, which times it too
    } catch (const CompileError&) {
      // kept from a run where it compiled: tune again rather than fail
    }
  }
  // Autotuning needs timer queries; on software rasterizers they do not see shader work, so
  // it runs there only when asked for explicitly (SharedMemory), which the tests do.
  tune_pending_ = options.autotune && shared_ && context.info().has_timer_query() &&
                  (!context.info().is_software || options.kernels == K::SharedMemory);
  tune_budget_seconds_ = options.autotune_seconds;
  if (!compiled_) {
    compiled_ =
        build(candidate_tilings(context.info(), shape, shared_, source_.computed_loads).front());
  }
}

namespace {

std::string defines_text(const Defines& defines) {
  std::string text;
  for (const auto& [name, value] : defines) text += name + "=" + value + " ";
  return text;
}

// Tilings tuned under a device-limit profile are kept apart from the device's own: the
// profile's candidates are fewer, and its choice would slow the device without it.
std::string tuning_device(const DeviceInfo& info) {
  std::string key = cache::device_key(info);
  if (!info.limit_profile.empty()) key += "limits " + info.limit_profile + "\n";
  return key;
}

}  // namespace

// Only the shared-memory kernels have tilings to choose from.
std::optional<GemmTiling> Gemm::known_tiling(bool* far_sibling) const {
  if (!shared_) return std::nullopt;
  const GemmIdentity id = identity();
  auto known = tuned_tiling(id);
  GemmShape sibling;
  if (!known) {
    known = sibling_tiling(id, &sibling);
    *far_sibling = known && far_larger(shape_, sibling);
  }
  if (!known) return std::nullopt;
  return fitted_tiling(context_->info(), shape_, *known);
}

GemmIdentity Gemm::identity() const {
  return {tuning_device(context_->info()),
          fmt::format("shared {} {}\n{}{}", source_.a_k_fast, source_.b_k_fast, source_.operands,
                      source_.result),
          defines_text(source_.defines), shape_};
}

Gemm::~Gemm() = default;
Gemm::Gemm(Gemm&&) noexcept = default;
Gemm& Gemm::operator=(Gemm&&) noexcept = default;

namespace {

// Work groups of a tiling, numbered linearly over a 2-D grid within the device's x limit.
std::pair<std::size_t, std::size_t> grid_of(const DeviceInfo& info, GemmShape s,
                                            const GemmTiling& t) {
  return linear_grid(info, static_cast<std::size_t>(ceil_div(s.m, t.bm)) *
                               static_cast<std::size_t>(ceil_div(s.n, t.bn)));
}

}  // namespace

std::vector<KernelSource> gemm_kernel_sources(const DeviceInfo& info, GemmShape shape,
                                              const GemmSource& source, const GemmTiling& t,
                                              const std::string& label) {
  const int blocks_m = ceil_div(shape.m, t.bm), blocks_n = ceil_div(shape.n, t.bn);
  const std::size_t grid_x = grid_of(info, shape, t).first;
  const int k_per_split = ceil_div(ceil_div(shape.k, t.split), t.bk) * t.bk;
  Defines d = source.defines;
  for (auto [name, value] : {std::pair{"GM", shape.m},
                             {"GN", shape.n},
                             {"GK", shape.k},
                             {"BM", t.bm},
                             {"BN", t.bn},
                             {"BK", t.bk},
                             {"TM", t.tm},
                             {"TN", t.tn},
                             {"SPLIT", t.split},
                             {"THREADS", t.threads()},
                             {"BLOCKS_M", blocks_m},
                             {"BLOCKS_N", blocks_n},
                             {"GRID_X", static_cast<int>(grid_x)},
                             {"K_PER_SPLIT", k_per_split}}) {
    d.emplace_back(name, std::to_string(value));
  }
  if (t.shared) d.emplace_back("SHARED", "");
  if (source.a_k_fast) d.emplace_back("A_K_FAST", "");
  if (source.b_k_fast) d.emplace_back("B_K_FAST", "");
  if (source.store_rows) d.emplace_back("STORE_ROWS", "");
  std::string main_text = source.operands;
  if (t.split == 1) main_text += source.result;
  main_text += mad_glsl;
  main_text += main_source;
  std::vector<KernelSource> sources{{main_text, d, label + " [" + t.to_string() + "]"}};
  if (wide_reduce(source, t)) {
    d.emplace_back("REDUCE_GRID_X", std::to_string(wide_reduce_grid(info, shape).first));
    sources.push_back({source.result + wide_reduce_source, d, label + " [split-K sum]"});
  } else if (t.split > 1) {
    sources.push_back({source.result + reduce_source, d, label + " [split-K sum]"});
  }
  return sources;
}

std::vector<KernelSource> Gemm::kernel_sources(const GemmTiling& t) const {
  return gemm_kernel_sources(context_->info(), shape_, source_, t, label_);
}

std::unique_ptr<Gemm::Compiled> Gemm::build(const GemmTiling& t) const {
  const auto sources = kernel_sources(t);
  const auto [grid_x, grid_y] = grid_of(context_->info(), shape_, t);
  auto c = std::unique_ptr<Compiled>(new Compiled{
      t, ComputeKernel(*context_, sources[0].source, sources[0].defines, sources[0].label),
      std::nullopt, Buffer(), grid_x, grid_y});
  if (t.split > 1) {
    c->reduce.emplace(*context_, sources[1].source, sources[1].defines, sources[1].label);
    c->partial = Buffer(*context_, ElementType::Float32,
                        static_cast<std::size_t>(t.split) * static_cast<std::size_t>(shape_.m) *
                            static_cast<std::size_t>(shape_.n));
  }
  return c;
}

void Gemm::run(const Args& operand_args, const Args& result_args) {
  if (tune_pending_) {
    tune_pending_ = false;
    std::vector<std::size_t> programs;
    for (const auto& t : tuning_candidates()) programs.push_back(t.split > 1 ? 2 : 1);
    const std::size_t fit = candidates_within_budget(cache::device_key(context_->info()),
                                                     tune_budget_seconds_, programs);
    if (fit > 0) {
      autotune(operand_args, result_args, fit);  // runs the candidates: the results are written
      return;
    }
  }
  run(*compiled_, operand_args, result_args);
}

void Gemm::run(Compiled& c, const Args& operand_args, const Args& result_args) {
  Args main_args = operand_args;
  if (c.tiling.split == 1) {
    main_args.insert(main_args.end(), result_args.begin(), result_args.end());
  } else {
    main_args.emplace_back("partial", c.partial);
  }
  c.main.run_groups(main_args, Size3{c.grid_x, c.grid_y, static_cast<std::size_t>(c.tiling.split)});
  if (c.reduce) {
    Args reduce_args = result_args;
    reduce_args.emplace_back("partial", c.partial);
    if (wide_reduce(source_, c.tiling)) {
      const auto [x, y] = wide_reduce_grid(context_->info(), shape_);
      c.reduce->run_groups(reduce_args, Size3{x, y, 1});
      return;
    }
    const std::size_t rows =
        static_cast<std::size_t>(source_.store_rows ? ceil_div(shape_.m, 4) : shape_.m);
    c.reduce->run(reduce_args, rows * static_cast<std::size_t>(shape_.n));
  }
}

void Gemm::set_timing(bool on) {
  compiled_->set_timing(on);
}

double Gemm::last_gpu_ns() const {
  return compiled_->last_gpu_ns();
}

double Gemm::timed_run(Compiled& c, const Args& operand_args, const Args& result_args) {
  c.set_timing(true);
  run(c, operand_args, result_args);
  c.set_timing(false);
  return c.last_gpu_ns();
}

// Untimed runs of `c`, queued back to back, for about tuning_warm_up_ns of GPU time as one
// timed run measures it now (longer, if the GPU clocks up meanwhile), at most 256 runs.
void Gemm::warm_up(Compiled& c, const Args& operand_args, const Args& result_args) {
  const double once = timed_run(c, operand_args, result_args);
  const double runs = once > 0 ? std::clamp(tuning_warm_up_ns / once, 1.0, 256.0) : 1.0;
  for (int r = 0; r < static_cast<int>(runs); ++r) run(c, operand_args, result_args);
}

std::vector<GemmTiling> Gemm::tuning_candidates() const {
  auto candidates = candidate_tilings(context_->info(), shape_, shared_, source_.computed_loads);
  if (sibling_) {  // a far smaller sibling's tiling, timed first
    std::erase_if(candidates,
                  [&](const GemmTiling& t) { return t.to_string() == sibling_->to_string(); });
    candidates.insert(candidates.begin(), *sibling_);
  }
  if (candidates.size() > 8) candidates.resize(8);
  return candidates;
}

// Compiles the candidates together (in parallel where the driver can) and builds those the
// device accepts.
std::vector<std::unique_ptr<Gemm::Compiled>> Gemm::build_candidates(
    const std::vector<GemmTiling>& candidates) const {
  std::vector<KernelSource> all_kernels;
  for (const auto& t : candidates) {
    for (auto& k : kernel_sources(t)) all_kernels.push_back(std::move(k));
  }
  precompile(*context_, all_kernels);
  std::vector<std::unique_ptr<Compiled>> built;
  for (const auto& t : candidates) {
    try {
      built.push_back(build(t));
    } catch (const Error&) {
      // a tiling this device cannot compile (registers, shared memory)
    }
  }
  return built;
}

void Gemm::autotune(const Args& operand_args, const Args& result_args, std::size_t max_candidates) {
  if (!context_->info().has_timer_query()) return;
  const auto started = std::chrono::steady_clock::now();
  auto candidates = tuning_candidates();
  if (candidates.size() > max_candidates)
    candidates.resize(std::max<std::size_t>(max_candidates, 1));
  const ProgramCounts before = context_->program_counts();
  auto built = build_candidates(candidates);
  const ProgramCounts after = context_->program_counts();
  std::vector<GemmTiling> tilings;
  for (const auto& c : built) tilings.push_back(c->tiling);
  if (!built.empty()) warm_up(*built.front(), operand_args, result_args);
  const auto timings = time_in_rounds(built.size(), tuning_rounds, [&](std::size_t i) {
    return timed_run(*built[i], operand_args, result_args);
  });
  if (const auto best = fastest_candidate(timings)) {
    compiled_ = std::move(built[*best]);
    run(*compiled_, operand_args, result_args);  // the results are the kept tiling's
    remember_tiling(identity(), compiled_->tiling);
  } else {
    compiled_ = build(candidates.front());
    run(*compiled_, operand_args, result_args);
  }
  spend_tuning_time(
      cache::device_key(context_->info()),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
      after.compiled - before.compiled, after.compile_seconds - before.compile_seconds);
  log_tuning(tilings, timings);
}

// GPGPU_NN_VERBOSE=1: what autotuning tried, round by round, and kept.
void Gemm::log_tuning(const std::vector<GemmTiling>& tilings,
                      const std::vector<std::vector<double>>& timings) const {
  const char* env = std::getenv("GPGPU_NN_VERBOSE");
  if (env == nullptr || *env == '\0' || *env == '0') return;
  std::string tried;
  for (std::size_t i = 0; i < tilings.size(); ++i) {
    tried += fmt::format("\n    {:9.1f} us  {}  (rounds:", fastest_round(timings[i]) / 1e3,
                         tilings[i].to_string());
    for (const double t : timings[i]) tried += fmt::format(" {:.1f}", t / 1e3);
    tried += ")";
  }
  std::fprintf(stderr, "nn autotune %s (%dx%dx%d): kept %s%s\n", label_.c_str(), shape_.m, shape_.n,
               shape_.k, compiled_->tiling.to_string().c_str(), tried.c_str());
}

const GemmTiling& Gemm::tiling() const {
  return compiled_->tiling;
}

}  // namespace gpgpu::nn::detail
