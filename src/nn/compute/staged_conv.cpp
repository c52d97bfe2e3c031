// Stride-1 convolutions with their input rows staged in shared memory (staged_conv.hpp).
#include "staged_conv.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "gemm.hpp"
#include "glsl/stage_defines.hpp"
#include "gpgpu/error.hpp"
#include "runners.hpp"

namespace gpgpu::nn::detail {

namespace {

// A work group runs one band of out rows of an image for one block of filters, numbered
// linearly over a 2-D grid (linear_grid). Per input channel: every invocation fetches its
// share of the next channel's staged rows (ROWS x COLS inputs) and weights (KS KS x BN) into
// registers while the current channel's are multiplied, as the GEMMs fetch their next slice.
// The invocations of a row segment share its inputs; those of a filter group its weights.
constexpr const char* staged_source = R"(
layout(local_size_x = THREADS) in;
// The weights as weight_layout_source lays them out: channel by channel, tap by tap, FPAD
// filters each (zero past S_F).
layout(std430, binding = 1) readonly buffer StagedWeights { float staged_w[]; };
const int TAPS = KS * KS;
const int GROUPS = BN / FB;
const int FB4 = FB / 4;
const int BN4 = BN / 4;
const int ROWS = BAND + KS - 1;
const int COLS = SEGS * TW + KS - 1;
const int INPUTS = ROWS * COLS;
const int WEIGHTS = TAPS * BN4;
const int INPUT_LOADS = (INPUTS + THREADS - 1) / THREADS;
const int WEIGHT_LOADS = (WEIGHTS + THREADS - 1) / THREADS;
shared float rows_in[INPUTS];
shared vec4 weights_in[WEIGHTS];
float next_inputs[INPUT_LOADS];
vec4 next_weights[WEIGHT_LOADS];

void fetch(int img, int oy0, int f0, int c, int tid) {
  for (int l = 0; l < INPUT_LOADS; ++l) {
    int i = tid + l * THREADS;
    int r = i / COLS;
    int iy = oy0 + r - S_PAD_T, ix = i - r * COLS - S_PAD_L;
    float v = 0.0;
    if (i < INPUTS && uint(iy) < uint(S_IH) && uint(ix) < uint(S_IW)) v = staged_input(img, c, iy, ix);
    next_inputs[l] = v;
  }
  // Neighbouring invocations read neighbouring filters of a tap, 4 each.
  for (int l = 0; l < WEIGHT_LOADS; ++l) {
    int i = tid + l * THREADS;
    int tap = i / BN4;
    int at = (c * TAPS + tap) * FPAD + f0 + 4 * (i - tap * BN4);
    if (i < WEIGHTS) next_weights[l] = vec4(staged_w[at], staged_w[at + 1], staged_w[at + 2], staged_w[at + 3]);
  }
}

void main() {
  int block = int(gl_WorkGroupID.y) * GRID_X + int(gl_WorkGroupID.x);
  if (block >= BLOCKS) return;  // the whole work group leaves together
  int f0 = (block % FBLOCKS) * BN;
  int rest = block / FBLOCKS;
  int img = rest / BANDS;
  int oy0 = (rest - img * BANDS) * BAND;
  int tid = int(gl_LocalInvocationID.x);
  int g = tid % GROUPS;
  int at = tid / GROUPS;
  int hr = at / SEGS;
  int ox0 = (at - hr * SEGS) * TW;
  vec4 acc[TW * FB4];
  for (int i = 0; i < TW * FB4; ++i) acc[i] = vec4(0.0);
  fetch(img, oy0, f0, 0, tid);
  for (int c = 0; c < S_C; ++c) {
    barrier();  // the previous channel has been used
    for (int l = 0; l < INPUT_LOADS; ++l) {
      int i = tid + l * THREADS;
      if (i < INPUTS) rows_in[i] = next_inputs[l];
    }
    for (int l = 0; l < WEIGHT_LOADS; ++l) {
      int i = tid + l * THREADS;
      if (i < WEIGHTS) weights_in[i] = next_weights[l];
    }
    memoryBarrierShared();
    barrier();
    if (c + 1 < S_C) fetch(img, oy0, f0, c + 1, tid);
    for (int ky = 0; ky < KS; ++ky) {
      float a[TW + KS - 1];
      int row = S_FLIP != 0 ? hr + KS - 1 - ky : hr + ky;
      for (int j = 0; j < TW + KS - 1; ++j) a[j] = rows_in[row * COLS + ox0 + j];
      for (int kx = 0; kx < KS; ++kx) {
        int col = S_FLIP != 0 ? KS - 1 - kx : kx;
        vec4 b[FB4];
        for (int q = 0; q < FB4; ++q) b[q] = weights_in[(ky * KS + kx) * BN4 + g * FB4 + q];
        for (int p = 0; p < TW; ++p) {
          for (int q = 0; q < FB4; ++q) acc[p * FB4 + q] = MAD(vec4(a[p + col]), b[q], acc[p * FB4 + q]);
        }
      }
    }
  }
  int oy = oy0 + hr;
  if (oy >= S_OH) return;
  for (int p = 0; p < TW; ++p) {
    int ox = ox0 + p;
    if (ox >= S_OW) break;
    int m = (img * S_OH + oy) * S_OW + ox;
    for (int q = 0; q < FB4; ++q) {
      for (int e = 0; e < 4; ++e) {
        int n = f0 + g * FB + 4 * q + e;
        if (n < S_F) store_c(m, n, acc[p * FB4 + q][e]);
      }
    }
  }
}
)";

// The weights laid out for the staged kernel, from the caller's staged_weight: element
// (c TAPS + tap) FPAD + n; zero for the filters past S_F that pad the last block. One
// invocation per element, consecutive ones along n; run before every convolution, since
// training changes the weights between them.
constexpr const char* weight_layout_source = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) writeonly buffer StagedWeights { float staged_w[]; };
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  int n = int(i % uint(FPAD));
  int ct = int(i / uint(FPAD));
  int c = ct / (KS * KS);
  staged_w[i] = n < S_F ? staged_weight(c, ct - c * KS * KS, n) : 0.0;
}
)";

constexpr int filters_per_invocation = 4;
constexpr int filters_per_group = 32;
// Invocations per work group at most: 224 (a 14-row band of 2 segments x 8 filter groups)
// ran the fastest of the shapes timed on an H200 (docs/nn-internals.md).
constexpr int max_threads = 256;
constexpr int max_kernel = 11;
// A first layer's one to three channels give the staged rows little to share, and its many
// output planes are written 4 filters per invocation, scattered: the `cnn` net's first
// convolution (1 channel, 28 x 28) ran 1.8x slower staged than as its implicit GEMM on an
// H200 (10,000 images).
constexpr int min_channels = 4;

// Positions per invocation along a row: the width in 4 to 8 that wastes the fewest positions
// past the row's end (the widest of equals); narrower rows whole.
int row_width(int out_w) {
  if (out_w <= 8) return out_w;
  int best = 8;
  for (int w = 8; w >= 4; --w) {
    if (ceil_div(out_w, w) * w < ceil_div(out_w, best) * best) best = w;
  }
  return best;
}

std::int64_t shared_bytes(const StagedConvShape& s, const StagedConvTiling& t) {
  const std::int64_t rows = t.band + s.ks - 1, cols = t.segments * t.row + s.ks - 1;
  return 4 * (rows * cols + std::int64_t{s.ks} * s.ks * t.block);
}

// GPGPU_NN_CONV=gemm runs every convolution as implicit GEMMs (for same-run comparisons).
bool staged_allowed() {
  const char* env = std::getenv("GPGPU_NN_CONV");
  if (env == nullptr || *env == '\0') return true;
  const std::string v = env;
  if (v == "auto") return true;
  if (v == "gemm") return false;
  throw ArgumentError("GPGPU_NN_CONV=" + v + ": expected auto or gemm");
}

}  // namespace

std::optional<StagedConvTiling> staged_conv_tiling(const DeviceInfo& info,
                                                   const BackendOptions& options,
                                                   const StagedConvShape& s) {
  if (!staged_allowed() || !shared_tiles(info, options) || s.ks > max_kernel ||
      s.channels < min_channels) {
    return std::nullopt;
  }
  StagedConvTiling t;
  t.row = row_width(s.out_w);
  t.segments = ceil_div(s.out_w, t.row);
  t.block = std::min(filters_per_group, ceil_div(s.filters, 4) * 4);
  t.filters = filters_per_invocation;
  const std::int64_t limit = std::min<std::int64_t>(
      {max_threads, info.max_compute_work_group_invocations, info.max_compute_work_group_size[0]});
  const int per_row = t.segments * (t.block / t.filters);
  // The tallest band within the limits, then evened out over the bands it takes.
  t.band = static_cast<int>(std::min<std::int64_t>(s.out_h, limit / per_row));
  while (t.band >= 1 && shared_bytes(s, t) > info.max_compute_shared_memory_size) --t.band;
  if (t.band < 1) return std::nullopt;
  t.band = ceil_div(s.out_h, ceil_div(s.out_h, t.band));
  return t;
}

namespace {

Defines staged_defines(const DeviceInfo& info, const StagedConvShape& s, const Defines& given,
                       const StagedConvTiling& t) {
  const int fblocks = t.filter_blocks(s);
  const std::size_t blocks = t.groups(s);
  Defines d = given;
  for (auto [name, value] : {std::pair{"S_C", s.channels},
                             {"S_F", s.filters},
                             {"S_IH", s.in_h},
                             {"S_IW", s.in_w},
                             {"S_OH", s.out_h},
                             {"S_OW", s.out_w},
                             {"S_PAD_T", s.pad_t},
                             {"S_PAD_L", s.pad_l},
                             {"S_FLIP", s.flipped ? 1 : 0},
                             {"TW", t.row},
                             {"SEGS", t.segments},
                             {"FB", t.filters},
                             {"BN", t.block},
                             {"BAND", t.band},
                             {"BANDS", t.bands(s)},
                             {"FBLOCKS", fblocks},
                             {"FPAD", fblocks * t.block},
                             {"THREADS", t.threads()}}) {
    d.emplace_back(name, std::to_string(value));
  }
  d.emplace_back("BLOCKS", glsl_int(blocks, "staged convolution work groups"));
  d.emplace_back("GRID_X", std::to_string(linear_grid(info, blocks).first));
  return d;
}

std::size_t laid_out_weights(const StagedConvShape& s, const StagedConvTiling& t) {
  return static_cast<std::size_t>(s.channels) * s.ks * s.ks * t.filter_blocks(s) * t.block;
}

}  // namespace

std::vector<KernelSource> staged_conv_sources(const DeviceInfo& info, const StagedConvShape& s,
                                              const StagedConvSource& source,
                                              const StagedConvTiling& t, const std::string& label) {
  const Defines d = staged_defines(info, s, source.defines, t);
  return {
      nn_kernel_source(source.weights + weight_layout_source, d, label + " (weight layout)"),
      nn_kernel_source(source.inputs + source.result + mad_glsl + staged_source, d,
                       fmt::format("{} (staged {}x{}, {} rows)", label, t.row, t.filters, t.band))};
}

StagedConv::StagedConv(const Context& context, const StagedConvShape& shape,
                       const StagedConvSource& source, const StagedConvTiling& tiling,
                       const std::string& label)
    : weights_(context, ElementType::Float32, laid_out_weights(shape, tiling)) {
  auto sources = staged_conv_sources(context.info(), shape, source, tiling, label);
  layout_.emplace(compile(context, sources[0]));
  kernel_.emplace(compile(context, sources[1]));
  const auto [x, y] = linear_grid(context.info(), tiling.groups(shape));
  groups_ = Size3{x, y, 1};
}

void StagedConv::run(const Args& inputs, const Args& weights, const Args& result) {
  Args layout_args = weights;
  layout_args.emplace_back("staged_w", weights_);
  layout_->run(layout_args, weights_.size());
  Args main_args = inputs;
  main_args.emplace_back("staged_w", weights_);
  main_args.insert(main_args.end(), result.begin(), result.end());
  kernel_->run_groups(main_args, groups_);
}

}  // namespace gpgpu::nn::detail
