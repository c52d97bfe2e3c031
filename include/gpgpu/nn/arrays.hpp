// gpgpu/nn/arrays.hpp — training, evaluating and predicting from float32 samples in host
// memory (what NumPy users and the Python module hand over), rather than from a data set of
// byte images resident on the device (train.hpp).
//
//   std::vector<float> x = ...;                // count samples of model.input_shape(), as is
//   std::vector<int> y = ...;                  // count labels in [0, classes)
//   gpgpu::nn::ArrayTrainer trainer(model, x, y, {.batch = 64, .optimizer = gpgpu::nn::Adam{}});
//   auto epoch = trainer.run_epoch();
//   auto eval = gpgpu::nn::evaluate(model, x_test, y_test);
//   auto logits = gpgpu::nn::predict(model, x_test, gpgpu::nn::Outputs::Logits);
//
// The samples are the network's input exactly (no normalisation is applied: a model's
// Normalization belongs to byte images, see data.hpp). A training step copies its batch
// (through the epoch's shuffled order, shuffled_indices(count, seed, epoch) as Trainer does)
// to the device, runs the forward pass, reads the logits back, computes the softmax
// cross-entropy and its gradient (softmax - onehot) / batch on the host in float64
// (softmax_cross_entropy, loss.hpp), and hands the gradient back for the backward pass and the
// optimizer's update: one small read and one small write per step more than Trainer, whose
// loss kernel runs on the device. A final Softmax layer is fused with the loss as in Trainer.
// Epochs drop the last incomplete batch (as Trainer); augmentation and batch shards are
// Trainer's alone and refused here.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "gpgpu/nn/loss.hpp"
#include "gpgpu/nn/model.hpp"
#include "gpgpu/nn/train.hpp"

namespace gpgpu::nn {

namespace detail {
struct ArrayTrainerState;
}

// Trains a model on float32 samples and integer labels in host memory, one shuffled epoch at
// a time, with the loss computed on the host (the manual at the top of this header).
// Move-only.
class ArrayTrainer {
 public:
  // `samples`: labels.size() samples of model.input_shape(), C order; `labels` in
  // [0, output classes). Both must outlive the trainer (they are not copied). Throws
  // SizeMismatchError when the sizes disagree, ArgumentError for a label out of range, a batch
  // of 0 or larger than the data, augmentation, a shard, or hooks.
  ArrayTrainer(Sequential& model, std::span<const float> samples, std::span<const int> labels,
               TrainOptions options);
  ~ArrayTrainer();
  // @{
  // Moves the trainer (its step and epoch counts go with it); a moved-from ArrayTrainer may
  // only be destroyed or assigned to.
  ArrayTrainer(ArrayTrainer&&) noexcept;
  ArrayTrainer& operator=(ArrayTrainer&&) noexcept;
  // @}

  // One epoch over the data in a fresh shuffled order; on_progress every report_every steps
  // and after the last (Progress::loss: the mean loss since the previous report).
  EpochResult run_epoch(const std::function<void(const Progress&)>& on_progress = {});
  // Epochs run so far (the next epoch's shuffle and learning-rate schedule follow from it).
  std::size_t epochs_done() const;
  std::size_t steps_done() const;  // optimizer steps (batches) so far, over all epochs

 private:
  std::unique_ptr<detail::ArrayTrainerState> state_;
};

// What predict() returns per sample.
enum class Outputs {
  Model,   // the model's outputs as they are (probabilities when the last layer is a Softmax)
  Logits,  // the inputs of a final Softmax layer (the model's outputs when it has none)
};

// The outputs of every sample (labels.size() or samples.size() / input size of them), in
// batches of `batch` (the last one padded with copies of the last sample, so one batch size
// serves: no kernels are built for a second size). Eval mode. Throws SizeMismatchError when
// samples.size() is not a whole number of samples, ArgumentError for a batch of 0.
std::vector<float> predict(Sequential& model, std::span<const float> samples, Outputs what,
                           std::size_t batch = 1000);

// Loss (softmax cross-entropy of the logits, float64 on the host), accuracy, predictions and
// confusion matrix of labelled samples, in batches of `batch`.
Evaluation evaluate(Sequential& model, std::span<const float> samples, std::span<const int> labels,
                    std::size_t batch = 1000);

}  // namespace gpgpu::nn
