// Internal: a stride-1 convolution computed directly rather than as an implicit GEMM (gemm.hpp),
// on devices that run the shared-memory kernels.
//
// A work group takes a band of output rows of one image for a block of filters. For each
// input channel it stages the band's input rows (zero in the padding) and the block's weights
// in shared memory; each invocation then reads a row of TW + KS - 1 staged inputs once per
// kernel row and uses it for TW neighbouring positions x KS taps x its 4 filters. An implicit
// GEMM reads every input element once per tap through im2col address arithmetic; here each is
// read from memory once per work group. A small kernel first lays the weights out tap by tap
// (filters contiguous), so that the staging reads them as whole vec4s and writes them to
// shared memory without bank conflicts. On an H200 the `cnn` net's second convolution
// (32 -> 64 channels, 5 x 5, 14 x 14) ran 1.6x (batch 256) to 1.7x (10,000 images) faster
// than its tuned implicit GEMM (docs/nn-internals.md).
//
// With stride 1 the input gradient is the same kind of convolution (of dy, with the weights
// flipped and the padding KS - 1 - PAD), so both the forward pass and the input gradient run
// through it; the weight gradient stays a GEMM.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/defines.hpp"
#include "gpgpu/nn/model.hpp"

namespace gpgpu::nn::detail {

// `channels` input planes of in_h x in_w to `filters` output planes of out_h x out_w, per image
// of `batch`: out(oy, ox) = sum over c, ky, kx (in that order) of in(oy + ky - pad_t,
// ox + kx - pad_l) times weight(c, ky KS + kx, n), 0 outside the input. `flipped`: of
// in(oy - ky + pad_t', ox - kx + pad_l') instead, with pad_t' = ks - 1 - pad_t (likewise
// pad_l'), which is the same convolution with the taps in reverse order: an input gradient
// summed in the order its implicit GEMM sums (tap by tap of the forward weights), so that
// the two give the same bits.
struct StagedConvShape {
  int batch = 0, channels = 0, filters = 0;
  int in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int ks = 1, pad_t = 0, pad_l = 0;
  bool flipped = false;
};

// What the caller writes in GLSL:
//   inputs:  a buffer declaration at binding 0 and
//            float staged_input(int img, int c, int iy, int ix)  (only inside the input)
//   weights: a buffer declaration at binding 1 and
//            float staged_weight(int c, int tap, int n)          (tap = ky KS + kx)
//   result:  buffer declarations (bindings 2 and 3) and void store_c(int m, int n, float v),
//            m = (img out_h + oy) out_w + ox: the GEMMs' store functions as they are.
// A first kernel lays the weights out channel by channel and tap by tap (staged_weight's
// buffer and its own: two bindings), the convolution reads them from there beside its input
// and result (four bindings, OpenGL ES 3.1's minimum).
struct StagedConvSource {
  std::string inputs;
  std::string weights;
  std::string result;
  Defines defines;
};

// What a work group and an invocation compute.
struct StagedConvTiling {
  int row = 1;       // TW: neighbouring positions of a row per invocation
  int segments = 1;  // a row in segments of TW positions (the last may reach past out_w)
  int filters = 4;   // per invocation
  int block = 4;     // filters per work group
  int band = 1;      // output rows per work group
  int threads() const { return band * segments * (block / filters); }
  int bands(const StagedConvShape& s) const { return (s.out_h + band - 1) / band; }
  int filter_blocks(const StagedConvShape& s) const { return (s.filters + block - 1) / block; }
  // Work groups: one per band of each image and block of filters.
  std::size_t groups(const StagedConvShape& s) const {
    return static_cast<std::size_t>(s.batch) * bands(s) * filter_blocks(s);
  }
};

// The tiling for `shape`, or nothing where the staged kernel does not run: where the GEMMs
// run their direct kernels (software rasterizers; shared memory is ordinary memory there),
// kernels larger than 11 x 11, a row of staged inputs beyond the device's shared memory or
// work-group size, and with GPGPU_NN_CONV=gemm in the environment (an A/B switch; any other
// value than gemm or auto is an ArgumentError naming it).
std::optional<StagedConvTiling> staged_conv_tiling(const DeviceInfo& info,
                                                   const BackendOptions& options,
                                                   const StagedConvShape& shape);

// The kernels of a staged convolution: the weights' layout, then the convolution. `label`
// names them in errors.
std::vector<KernelSource> staged_conv_sources(const DeviceInfo& info, const StagedConvShape& shape,
                                              const StagedConvSource& source,
                                              const StagedConvTiling& tiling,
                                              const std::string& label);

// A staged convolution, compiled, with the buffer its weights are laid out in.
class StagedConv {
 public:
  StagedConv(const Context& context, const StagedConvShape& shape, const StagedConvSource& source,
             const StagedConvTiling& tiling, const std::string& label);
  // Binds the inputs, weights and result snippets' buffers by name.
  void run(const Args& inputs, const Args& weights, const Args& result);

 private:
  Buffer weights_;
  std::optional<ComputeKernel> layout_, kernel_;
  Size3 groups_;
};

}  // namespace gpgpu::nn::detail
