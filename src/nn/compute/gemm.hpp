// Internal: implicit GEMMs, C (M x N) = sum_k A(m, k) B(k, n), whose operands are read
// through GLSL functions (so a convolution's im2col never exists in memory) and whose
// results go through a GLSL store function (fused bias, activation, layout).
//
// A user of Gemm supplies two GLSL snippets:
//   operands: buffer declarations (bindings 0-1) and
//             float load_a(int m, int k); float load_b(int k, int n);
//             called only for m < GM, n < GN, k < GK; optionally (A_PARTS, B_PARTS) the
//             same loads split in a row's or column's part and a depth's, which the
//             shared-memory kernel then makes once per row and once per four loads:
//             ivec3 a_part_m(int m); ivec3 a_part_k(int k);
//             float load_a_parts(ivec3 m_part, ivec3 k_part);
//             int b_part_k(int k); float load_b_parts(int k_part, int n)
//   result:   buffer declarations (bindings 2-3) and void store_c(int m, int n, float v);
//             called once per (m, n) with the complete sum; or, with `store_rows`,
//             void store_rows(int m, int n, vec4 v): rows m .. m + 3 of column n at once
//             (m a multiple of 4; components past GM are to be ignored), so that an
//             epilogue can combine neighbouring rows (a pooling window) without another pass
// (four storage buffers in all, OpenGL ES 3.1's minimum: the split-K kernels bind their
// partial sums at 2 beside the operands and at 0 beside the result),
// and says which operand is contiguous along k (A_K_FAST, B_K_FAST: the threads of a load
// then walk k, so neighbouring invocations read neighbouring addresses).
//
// Two kernel shapes (see gemm.cpp): shared-memory tiles with a register block per
// invocation (GPUs), or direct loads with a register block per invocation (llvmpipe).
// When M x N is too small to fill the device, K is split across work groups (split-K):
// each writes a partial sum, and a second kernel adds the partials and calls store_c.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpgpu/arg.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/defines.hpp"
#include "gpgpu/nn/model.hpp"

namespace gpgpu::nn::detail {

struct GemmIdentity;

struct GemmShape {
  int m = 0, n = 0, k = 0;
};

struct GemmSource {
  std::string operands;
  std::string result;
  bool a_k_fast = false;
  bool b_k_fast = false;
  Defines defines;  // shared by both kernels (shapes, offsets, activations)
  // The loads compute their addresses (a convolution's im2col and col2im): see
  // candidate_tilings.
  bool computed_loads = false;
  bool store_rows = false;  // the result snippet defines store_rows instead of store_c
};

struct GemmTiling {
  int bm = 64, bn = 64, bk = 8, tm = 4, tn = 4;
  int split = 1;
  bool shared = true;
  int threads() const { return (bm / tm) * (bn / tn); }
  std::string to_string() const;
};

// GLSL that defines MAD(a, b, c): fma() where the language has it (GLSL ES 3.20), a * b + c
// on OpenGL ES 3.1 devices (which compilers fuse anyway). The GEMMs and the staged
// convolutions multiply through it.
extern const char* const mad_glsl;

int ceil_div(int a, int b);  // a / b rounded up, for positive a and b

// `groups` work groups numbered linearly over a 2-D grid (x, y) within the device's x limit
// (at least 65,535 in OpenGL ES 3.1): a kernel finds its number as y * GRID_X + x.
std::pair<std::size_t, std::size_t> linear_grid(const DeviceInfo& info, std::size_t groups);

// Whether GEMMs run the shared-memory kernels (tiles) rather than the direct ones: as
// `options` ask, or with Auto on GPUs (not on software rasterizers).
bool shared_tiles(const DeviceInfo& info, const BackendOptions& options);

// The tilings worth trying for a shape on a device (the first is the heuristic's choice),
// each within the work-group size and shared memory `info` allows; the direct tiling (8
// invocations, no shared memory) where no shared-memory block fits.
// With `computed_loads`, those whose invocations keep 4 rows (TM = 4) come first: beside a
// convolution's address arithmetic the best 8-row block ran 1.2-1.8x slower than the best
// 4-row one on an H200 (the CNN's second convolution at batch 256, its three GEMMs,
// 2026-11-30; docs/nn.md), and the cost model's first choice (it counts only register reuse,
// which favours 8 rows) up to 6.7x slower. Blocks wider than n (rounded up to a power of two)
// are left out where a narrower one fits.
std::vector<GemmTiling> candidate_tilings(const DeviceInfo& info, GemmShape shape, bool shared,
                                          bool computed_loads = false);
// The tiling with the blocks of `blocks` (a tiling tuned for this or a sibling shape, maybe
// read from the disk cache) and the slice depth and split of k that `shape` gets; nothing
// when the blocks are not among the shared-memory candidates or do not fit the device.
std::optional<GemmTiling> fitted_tiling(const DeviceInfo& info, GemmShape shape,
                                        const GemmTiling& blocks);
// The block GPGPU_NN_BLOCKS="bm,bn,tm,tn" names, fitted to `shape`, where it is set, the
// GEMM runs the shared-memory kernels and the block fits; throws ArgumentError when it is
// not four integers.
std::optional<GemmTiling> forced_blocks(const DeviceInfo& info, GemmShape shape, bool shared);
// The kernels of a tiling: the GEMM, and the split-K sum when k is split. `label` names them.
std::vector<KernelSource> gemm_kernel_sources(const DeviceInfo& info, GemmShape shape,
                                              const GemmSource& source, const GemmTiling& tiling,
                                              const std::string& label);

class Gemm {
 public:
  // Compiles the kernels for the heuristic tiling. `label` names them in errors.
  Gemm(const Context& context, GemmShape shape, GemmSource source, const BackendOptions& options,
       std::string label);
  ~Gemm();
  Gemm(Gemm&&) noexcept;
  Gemm& operator=(Gemm&&) noexcept;

  // Binds `operand_args` (the operand snippet's buffers) and `result_args` (the result
  // snippet's) and runs the multiplication.
  void run(const Args& operand_args, const Args& result_args);
  // On devices with timer queries: times each candidate tiling on these arguments, after a
  // warm-up and in rounds (time_in_rounds, gemm_tuning.hpp), keeps the fastest and remembers
  // it; the kept tiling runs last, so the results are written. run() does it on its first call when
  // BackendOptions::autotune is on, the device is a GPU, no tiling is known for this GEMM or a
  // sibling (or only one with far fewer rows: far_larger), and at least two candidates fit in
  // what is left of the process's tuning budget (the first that fit).
  void autotune(const Args& operand_args, const Args& result_args, std::size_t max_candidates = 8);
  const GemmTiling& tiling() const;
  double last_gpu_ns() const;
  void set_timing(bool on);

 private:
  struct Compiled;
  // The kernels of a tiling: the GEMM, and the split-K sum when k is split.
  std::vector<KernelSource> kernel_sources(const GemmTiling& tiling) const;
  // The candidates a tuning tries: the cost model's order, at most eight.
  std::vector<GemmTiling> tuning_candidates() const;
  std::unique_ptr<Compiled> build(const GemmTiling& tiling) const;
  std::vector<std::unique_ptr<Compiled>> build_candidates(
      const std::vector<GemmTiling>& candidates) const;
  void run(Compiled& c, const Args& operand_args, const Args& result_args);
  double timed_run(Compiled& c, const Args& operand_args, const Args& result_args);
  void warm_up(Compiled& c, const Args& operand_args, const Args& result_args);
  void log_tuning(const std::vector<GemmTiling>& tilings,
                  const std::vector<std::vector<double>>& timings) const;
  // A tiling known before tuning (gemm_tuning.hpp), if any, and what that is looked up by.
  // `far_sibling`: it is a sibling's with far fewer rows (far_larger), to be tuned still.
  std::optional<GemmTiling> known_tiling(bool* far_sibling) const;
  GemmIdentity identity() const;

  const Context* context_;
  GemmShape shape_;
  GemmSource source_;
  std::string label_;
  bool shared_ = true;
  bool tune_pending_ = false;  // autotune on the first run (GPUs with timer queries)
  double tune_budget_seconds_ = 0;
  std::optional<GemmTiling> sibling_;  // a far smaller sibling's tiling (known_tiling)
  std::unique_ptr<Compiled> compiled_;
};

}  // namespace gpgpu::nn::detail
