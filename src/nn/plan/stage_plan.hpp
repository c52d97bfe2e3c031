// Internal: the one description of a network that every backend runs. A model's layers
// become stages (a layer with the activation after it fused in); each stage knows its
// shapes, its geometry (convolution and pooling extents), its parameter slices in the flat
// parameter vector and the activation slots it reads and writes. A StagePlan is the list
// for one (batch size, mode): backends allocate one array per slot and supply, per stage,
// only the kernels that run it.
//
// The gradient convention that makes fusion work: the gradient a stage receives is with
// respect to its output before its fused activation. So whoever writes a stage's output
// gradient (the next stage's backward, or the loss) multiplies by the derivative of that
// activation, computed from the activation's output, which is exactly that writer's input.
#pragma once

#include <compare>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "gpgpu/nn/layers.hpp"
#include "gpgpu/nn/model.hpp"

namespace gpgpu::nn::detail {

struct ModelState;

// Activations that fuse into the kernel producing their input (and whose derivative the
// kernel consuming their output applies). The values are the GLSL ACT codes.
enum class Act { None = 0, ReLU = 1, Sigmoid = 2, Tanh = 3, LeakyReLU = 4, Clip = 5 };

// An activation and its constants: a = LeakyReLU's alpha or Clip's min, b = Clip's max
// (the GLSL ACT_A and ACT_B).
struct Activation {
  Act kind = Act::None;
  float a = 0.0f, b = 0.0f;
  bool none() const { return kind == Act::None; }
  bool operator==(const Activation&) const = default;
};

// A convolution's extents: input (ci, ih, iw), output (co, oh, ow), square kernel, zero
// padding per side.
struct ConvGeometry {
  std::size_t ci = 0, ih = 0, iw = 0, co = 0, oh = 0, ow = 0;
  std::size_t kernel = 1, stride = 1;
  Padding pad;
  std::size_t taps() const { return kernel * kernel; }        // KK
  std::size_t depth() const { return ci * kernel * kernel; }  // KC: the GEMM's k
  std::size_t in_plane() const { return ih * iw; }
  std::size_t out_plane() const { return oh * ow; }
  bool padded() const { return pad != Padding{}; }
};

// Pooling windows of size_y x size_x over each of `channels` planes, sliding by `stride`,
// starting pad.top rows above and pad.left columns left of the plane. A window is cut to
// the input (clipped()) where padding or a ceil-mode window takes it past an edge.
struct PoolGeometry {
  std::size_t channels = 0, ih = 0, iw = 0, oh = 0, ow = 0, size_y = 1, size_x = 1, stride = 1;
  Padding pad;
  bool max = true;
  bool count_include_pad = true;  // averages: divide by the positions within the padded input
  // Whether some window reaches past the input (its padding, or a partial last window).
  bool clipped() const;
  // The positions a window at (oy, ox) averages over (AvgPool's divisor).
  std::size_t area(std::size_t oy, std::size_t ox) const;
};

// One kernel group of a plan: a layer, possibly with the activation after it fused in.
struct Stage {
  enum class Kind { Dense, Conv, MaxPool, AvgPool, Activation, Dropout, BatchNorm, Softmax, Alias };
  static constexpr std::size_t model_input = std::numeric_limits<std::size_t>::max();
  Kind kind = Kind::Alias;
  std::size_t layer = 0;  // the main layer's index
  Layer spec;
  Activation act;        // fused activation; for Kind::Activation the activation itself
  Activation input_act;  // the activation that produced this stage's input
  Shape in, out;         // per sample
  // Flat offsets of the layer's parameters, in parameter_specs order: weight, bias (Dense,
  // Conv2D); gamma, beta, running_mean, running_var (BatchNorm).
  std::vector<std::size_t> offsets;
  std::size_t input_stage = model_input;  // the real (non-alias) stage whose output is the input
  std::size_t slot = 0;  // activation slot of the output (aliases share their input's)
  std::size_t input_slot = 0;

  ConvGeometry conv() const;  // Kind::Conv
  PoolGeometry pool() const;  // Kind::MaxPool, Kind::AvgPool
  float dropout_rate() const;
  // BatchNorm: channels (features for (F) inputs) and values per channel and sample.
  std::size_t channels() const { return in[0]; }
  std::size_t channel_size() const { return in.size() / in[0]; }
  // "layer  3 conv2d + activation", for profiles.
  std::string name() const;
  // The seed of a dropout stage's mask for a forward pass seeded `seed` (every backend draws
  // the same mask: element i is kept when pcg_hash(i ^ pcg_hash(mask_seed)) / 2^32 >= rate).
  std::uint32_t mask_seed(std::uint32_t seed) const;
};

struct PlanKey {
  std::size_t batch;
  Mode mode;
  bool fuse_loss;       // a final Softmax is left out (the loss kernel applies it)
  bool input_gradient;  // backward also writes dL/d(input)
  auto operator<=>(const PlanKey&) const = default;
};

// The stages of a model for a batch size and mode, and the arrays they need.
struct StagePlan {
  PlanKey key;
  Shape input;  // per sample
  std::vector<Stage> stages;
  std::vector<std::size_t> slot_sizes;  // per sample; slot 0 is the model input
  std::size_t output_slot = 0;          // a model of only aliases outputs its input, slot 0
  Activation output_act;
  Shape output;  // per sample

  bool train() const { return key.mode == Mode::Train; }
  // Whether slot s has a gradient array: every slot a training backward writes or reads.
  bool has_gradient(std::size_t slot) const {
    return train() && (slot > 0 || key.input_gradient || slot == output_slot);
  }
  std::size_t slot_count() const { return slot_sizes.size(); }
  std::size_t values(std::size_t slot) const { return key.batch * slot_sizes[slot]; }
};

// Throws ArgumentError for a batch of 0.
StagePlan make_stage_plan(const ModelState& model, const PlanKey& key);

}  // namespace gpgpu::nn::detail
