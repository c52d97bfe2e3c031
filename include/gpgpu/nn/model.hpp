// gpgpu/nn/model.hpp — a Sequential network whose forward and backward passes run on the
// device or the host cores, through one of three backends.
//
//   gpgpu::nn::Sequential model(ctx, {1, 28, 28});          // per-sample input shape (C, H, W)
//   model.add(gpgpu::nn::Conv2D{.filters = 32, .kernel = 5, .padding = 2});
//   model.add(gpgpu::nn::ReLU{});
//   model.add(gpgpu::nn::MaxPool2D{});
//   model.add(gpgpu::nn::Flatten{});
//   model.add(gpgpu::nn::Dense{.units = 10});
//   model.initialize(42);                                    // He / Xavier from a seeded RNG
//   gpgpu::nn::Tensor logits = model.forward(images);        // images: (N, 1, 28, 28)
//
// Backends (one model, any backend, switchable at any time; parameters move with it). All
// run the same stage plan (src/nn/plan): each layer is described once, and a backend only
// supplies the kernels of each stage.
//   Auto               the default: Cpu when the device is a software rasterizer (llvmpipe:
//                      the "GPU" is the same cores), else Compute.
//   Cpu                C++ on the host cores: convolutions as im2col + OpenBLAS sgemm per
//                      image, dense layers as sgemm, the epilogues (bias, activation,
//                      activation derivatives) fused into loops over contiguous float32,
//                      parallel over the batch on a persistent thread pool
//                      (BackendOptions::threads). No data leaves host memory between layers.
//   Compute            compute shaders: convolutions and dense layers as implicit GEMMs with
//                      register blocking (shared-memory tiles on GPUs, direct loads on
//                      llvmpipe), the activation fused into the producing kernel, the
//                      optimizer one dispatch over all parameters in one flat buffer.
//   TransformFeedback  the method of gpgpu.js: one vertex per output element, inputs and
//                      parameters read from textures, results captured by transform
//                      feedback. Slower (on an H100 vertex work runs on a fraction of the
//                      SMs, and every draw waits for its capture count) but runs the same
//                      network with the same parameters.
// They agree to float32 rounding: every output is the same sum in another order, so they
// differ by at most about 2 gamma_K sum |terms| (gamma_K = K 2^-24 for sums of K terms);
// tests/nn_training_test.cpp checks it. Model files do not depend on the backend.
//
// Kernels and arrays are made once per (backend, batch size, mode) and reused; forward()
// and backward() return Tensors. Training loops use Trainer (train.hpp); forward/backward
// here are the building blocks (and what the tests check layer by layer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpgpu/context.hpp"
#include "gpgpu/nn/data.hpp"
#include "gpgpu/nn/layers.hpp"
#include "gpgpu/nn/tensor.hpp"

namespace gpgpu::nn {

// Where a model runs: the host cores (Cpu), compute shaders, or vertex shaders with
// transform feedback; Auto picks (resolve_backend).
enum class Backend { Auto, Cpu, Compute, TransformFeedback };
std::string_view to_string(Backend backend);  // "auto", "cpu", "compute", "transform-feedback"
// Accepts the names to_string gives (also "tf" and "transform_feedback"); nullopt else.
std::optional<Backend> parse_backend(std::string_view name);
// parse_backend, or ArgumentError naming `name` and listing the backends ("auto, cpu,
// compute, transform-feedback (tf)").
Backend backend_from_name(std::string_view name);

// Evaluation uses BatchNorm's running statistics and no dropout; training the batch's.
enum class Mode { Eval, Train };

// Settings of the backends.
struct BackendOptions {
  // Compute backend: how the GEMM kernels stage their operands. Auto: shared-memory tiles on
  // GPUs, direct loads on software rasterizers (llvmpipe), where shared memory is ordinary
  // memory and every barrier a coroutine switch. Either works everywhere.
  enum class Kernels { Auto, SharedMemory, Direct };
  Kernels kernels = Kernels::Auto;  // (above)
  // Compute backend on GPUs: time a few tilings of each GEMM when a batch size is first
  // used and keep the fastest (GL_EXT_disjoint_timer_query; skipped without it). Tuned
  // tilings are kept in the disk cache (gpgpu/cache.hpp) for later processes, and a GEMM
  // whose sibling at another batch size was tuned takes its tiling without tuning.
  bool autotune = true;
  // Cpu backend: the threads it computes on, the calling one included. 0: one per core this
  // process may run on (its CPU affinity), capped by the environment: $GPGPU_THREADS if set,
  // else $OMP_NUM_THREADS (as PyTorch reads it). A positive value is used as given.
  std::size_t threads = 0;
  // Wall time a process spends tuning at most, over all models; GEMMs met after that run the
  // cost model's first choice now and are tuned by a later process. Infinity: no bound.
  double autotune_seconds = 1.0;
  // Compute backend: replay a plan's forward and backward passes from a recorded
  // gpgpu::Sequence after their first run (docs/sequences.md): the same dispatches and the
  // same bits, far less CPU per step. Not with dropout (its masks' seeds change each pass on
  // the host), nor under GPGPU_NN_PROFILE (which times each stage). false: every kernel runs
  // on its own.
  bool replay = true;
  // Compute backend: a MaxPool2D or AvgPool2D right after a Conv2D runs inside the
  // convolution's GEMM (docs/nn.md, "Fused convolution and pooling"): its epilogue adds the
  // bias, applies the activation and pools, and writes only the pooled output (in training
  // also each window's largest position, or the activation's output where an average
  // pooling's backward needs its derivative); backward, dL/d(pooled output) becomes the
  // convolution's output gradient either inside the two gradient GEMMs' loads or in one
  // kernel before them. The results are the bits of the separate kernels where both split k
  // alike (untuned; a tuned tiling may move the last bits). Where pooling
  // windows overlap, or are not 1x1 or 2x2, or (in training) the device binds fewer than 6
  // storage buffers per kernel, the stages run apart. GPGPU_NN_FUSE=off|auto|kernel|loads in
  // the environment overrides this for every model of the process.
  //   Auto            fused on GPUs (apart on software rasterizers); backward in the loads
  //                   where only a weight-gradient GEMM of few row tiles reads the gradient
  //                   (a first layer), else through a kernel
  //   Off             every stage its own kernels
  //   GradientKernel  fused; backward always through the kernel
  //   GradientInLoads fused; backward always in the GEMMs' loads
  enum class Fusion { Auto, Off, GradientKernel, GradientInLoads };
  // Whether (and how) a convolution and the pooling after it fuse. Off by default: on an H200
  // (2026-11-29, docs/nn.md) Auto's fused `cnn` took 1.06x the separate kernels' epoch and
  // 1.07x their 10k-image inference, and on llvmpipe 1.21-1.38x.
  Fusion fuse_pooling = Fusion::Off;
};

// The backend `backend` stands for on `context`: Auto becomes Cpu on software rasterizers
// (DeviceInfo::is_software) and Compute elsewhere; the others stand for themselves.
Backend resolve_backend(Backend backend, const Context& context);
// The threads the Cpu backend uses with `options` (see BackendOptions::threads). Throws
// ArgumentError naming the variable when $GPGPU_THREADS or $OMP_NUM_THREADS is set to
// anything but a positive integer.
std::size_t cpu_threads(const BackendOptions& options);
// The BLAS the Cpu backend calls, as it describes itself ("OpenBLAS 0.3.21 DYNAMIC_ARCH
// NO_AFFINITY Haswell MAX_THREADS=64": the kernels it picked for this CPU are named there;
// $OPENBLAS_CORETYPE overrides that pick when the process starts).
std::string cpu_blas();
// Advice when the BLAS runs kernels below what this CPU offers — OpenBLAS before 0.3.22
// gives AMD Zen 4 its AVX2 kernels although the CPU has AVX-512, and training ran 1.5x
// faster with OPENBLAS_CORETYPE=SkylakeX (docs/nn.md) — else an empty string.
std::string cpu_blas_hint();

// One parameter array of the model, as it is saved.
struct ParameterInfo {
  std::size_t layer = 0;  // index into layers()
  std::string name;       // "weight", "bias", "gamma", ...
  Shape shape;            // its dimensions
  bool trainable = true;  // false for BatchNorm's running statistics
  std::size_t offset = 0;   // position in the flat vector of parameter_values()
  std::string key() const;  // "03_conv2d.weight": the file name stem when saved
};

namespace detail {
struct ModelState;
}

// A network of layers applied in order: built with add(), run with forward() and
// backward(), trained by a Trainer, saved by save_model (the manual at the top of this header).
class Sequential {
 public:
  // `input` is the shape of one sample: (C, H, W) for images, (F) for feature vectors.
  // The Context must outlive the model.
  Sequential(const Context& context, Shape input);
  ~Sequential();
  // @{
  // Moves the model; a moved-from Sequential must not be used.
  Sequential(Sequential&&) noexcept;
  Sequential& operator=(Sequential&&) noexcept;
  // @}

  // Appends a layer. Throws ArgumentError when it does not fit the current output shape
  // (naming the layer's index, type and the shape it got), and Error once the model has
  // parameters (add every layer before initialize() or the first run).
  Sequential& add(Layer layer);

  const std::vector<Layer>& layers() const;  // in order
  const Shape& input_shape() const;           // of one sample
  Shape output_shape() const;                  // per sample, after the last layer
  Shape shape_after(std::size_t layer) const;  // per sample, after layers()[layer]
  // A table of the layers, their output shapes and parameter counts.
  std::string summary() const;

  // What a data set's pixels go through before the first layer (saved with the model).
  void set_normalization(Normalization normalization);
  Normalization normalization() const;  // see set_normalization
  // Names of the output classes, if known (saved with the model).
  void set_class_names(std::vector<std::string> names);
  const std::vector<std::string>& class_names() const;  // see set_class_names

  // Every parameter array, in layer order; trainable ones first within the flat vector.
  const std::vector<ParameterInfo>& parameters() const;
  std::size_t parameter_count() const;  // all values, trainable or not
  std::size_t trainable_parameter_count() const;  // the trainable values (they come first)
  // Sets every parameter from a seeded generator (see Init in layers.hpp); BatchNorm's
  // gamma = 1, beta = 0, running mean 0 and variance 1. The same seed gives the same
  // values on every platform. Called with seed 1 on first use if never called.
  void initialize(std::uint64_t seed);
  bool initialized() const;  // the parameters have values
  // All parameters as one flat vector (offsets in parameters()); downloads when needed.
  std::vector<float> parameter_values() const;
  // Replaces all parameters (exactly parameter_count() values, else SizeMismatchError).
  void set_parameter_values(std::span<const float> values);

  // Chooses the backend (Auto until set); the parameters move to it (their values do not
  // change; the optimizer state restarts).
  void set_backend(Backend backend, BackendOptions options = {});
  Backend backend() const;         // as set (possibly Auto)
  Backend active_backend() const;  // what runs: resolve_backend(backend(), context())
  const BackendOptions& backend_options() const;  // as set

  // Runs the network on a batch x of shape (N, input...) and returns the outputs (N, output...)
  // as a new device Tensor. Throws SizeMismatchError naming both shapes when x does not fit.
  // In Train mode the activations are kept for backward() and Dropout draws a new mask.
  Tensor forward(const Tensor& x, Mode mode = Mode::Eval);
  // After forward(x, Mode::Train): takes dL/d(output) of the same shape as that output and
  // returns dL/dx; the parameter gradients of this batch replace the previous ones
  // (gradient_values()). Throws Error when no training forward pass came before.
  Tensor backward(const Tensor& output_gradient);
  // The gradients of the last backward(), flat like parameter_values() (zeros for
  // non-trainable parameters).
  std::vector<float> gradient_values() const;
  // The index of the largest output of each sample of x (forward in Eval mode).
  std::vector<int> classify(const Tensor& x);

  const Context& context() const;  // the Context it was made on
  // For the library's own use (Trainer, serialization).
  detail::ModelState& state() const { return *state_; }

 private:
  std::unique_ptr<detail::ModelState> state_;
};

}  // namespace gpgpu::nn
