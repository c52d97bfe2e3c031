// gpgpu/nn/train.hpp — training and evaluating a Sequential model on a DeviceDataset.
//
//   gpgpu::nn::DeviceDataset train(ctx, train_set), test(ctx, test_set);
//   gpgpu::nn::Trainer trainer(model, train, {.batch = 64, .optimizer = gpgpu::nn::Adam{}});
//   for (int e = 0; e < 10; ++e) {
//     auto epoch = trainer.run_epoch();
//     auto eval = gpgpu::nn::evaluate(model, test);
//     std::printf("loss %.4f  test accuracy %.2f%%\n", epoch.stats.mean_loss(), 100 *
//     eval.accuracy());
//   }
//
// A training step is one chain of kernels with no transfer: gather the batch from the
// resident data set through the epoch's shuffled order (normalising and augmenting on the
// way), the forward pass, the fused softmax-cross-entropy (which also adds the batch's loss
// and correct count to accumulators), the backward pass, TrainOptions::gradient_hook if
// set, and the optimizer update. On the GPU backends the host reads the accumulators every
// `report_every` steps and at the end of the epoch, never per step; on the Cpu backend
// everything stays in host memory. Epochs drop the last incomplete batch (as
// PyTorch's drop_last), so every step has the same batch size and the same kernels.
// With a BatchShard, a process runs its part of every global batch (same order, same
// augmentation of each sample): losses, accuracies and images per second then count its
// part only, and summing them over the processes is the caller's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gpgpu/nn/data.hpp"
#include "gpgpu/nn/loss.hpp"
#include "gpgpu/nn/model.hpp"
#include "gpgpu/nn/optimizers.hpp"

namespace gpgpu {
class Timeline;
}

namespace gpgpu::nn {

// The step's gradients in host memory, for TrainOptions::gradients_ready.
class GradientStaging {
 public:
  virtual ~GradientStaging() = default;
  // All trainable_parameter_count() gradients as one flat host array, of which positions
  // [first, end) are current: `first` must be at or above the latest ready_from reported
  // (ArgumentError otherwise: those layers have not run backward yet).
  // On the GPU backends this downloads what no earlier call of the step staged (nothing
  // staged is read again, so earlier positions may be changed meanwhile); the update uses the
  // whole array as the hooks leave it. The Cpu backend returns its own array.
  virtual std::span<float> from(std::size_t first) = 0;
  // The same without waiting: queues the copy of [first, end) and returns at once;
  // landed(first) tells when positions [first, end) are in the array (false while part of
  // it was never requested): the later layers' copy lands before the earlier layers'
  // kernels have run. Positions below ready_from are copied as their layers finish
  // backward, so landed(first) stays false until ready_from has fallen to `first` and they
  // have arrived. array() gives the array as it is. (The Cpu and transform-feedback
  // backends copy at once.)
  virtual void request(std::size_t first) = 0;
  virtual bool landed(std::size_t first) = 0;  // [first, end) has arrived (see request)
  virtual std::span<float> array() = 0;        // the array as it is (see request)
  // Positions [first, end) of the array hold their final values (no hook changes them
  // again this step): a GPU backend hands them back now, ahead of the rest, so that the
  // upload of a bucket summed early overlaps what is still travelling. Optional: the update
  // gets whatever was not committed at the end of the step anyway. `first` must be at or
  // above the latest ready_from reported (ArgumentError otherwise).
  virtual void commit(std::size_t /*first*/, std::size_t /*end*/) {}
};

// Data-parallel training: this process trains on samples [first, first + count) of every
// global batch of TrainOptions::batch samples (count 0: all of it). The loss gradient is
// then the mean over the shard; whoever combines the processes' gradients weights them by
// count / batch (gpgpu::nn_mpi does).
struct BatchShard {
  std::size_t first = 0, count = 0;  // this process's samples of each global batch
};

// How a Trainer trains: batch, optimizer, schedule, augmentation, and the hooks
// data-parallel training uses.
struct TrainOptions {
  std::size_t batch = 64;  // the global batch (see shard)
  BatchShard shard;        // this process's share of each batch (data-parallel training)
  Optimizer optimizer = Adam{};            // Sgd or Adam, with its settings
  Schedule schedule = Schedule::Constant;  // how the learning rate changes over the epochs
  std::size_t epochs = 10;       // the length of the schedule
  std::size_t step_epochs = 10;  // Schedule::Step: epochs per factor of 0.1
  Augmentation augmentation;       // random shifts and flips of the training images
  std::uint64_t seed = 1;          // shuffling, dropout masks and augmentation
  std::size_t report_every = 100;  // steps between reads of the loss accumulators
  std::size_t limit_steps = 0;     // stop an epoch after this many steps (0: the whole epoch)
  // Called after each step's backward pass and before the optimizer update with the batch's
  // gradients of every trainable parameter as one flat array: the first
  // trainable_parameter_count() positions of parameter_values()' layout (ParameterInfo::
  // offset; one contiguous range per parameter array, the arrays of a layer adjacent). It
  // may change them in place — data-parallel training sums them across processes here —
  // and the update uses what it leaves. On the Cpu backend the array is the backend's own
  // (no copy); on the GPU backends a hook costs one download per step, and an upload where
  // the host copy is not mapped memory (the compute backend's update reads mapped memory).
  std::function<void(std::span<float> gradients)> gradient_hook;
  // Called during each step's backward pass whenever the gradients of trainable positions
  // [ready_from, trainable_parameter_count()) became final (layers finish last to first, so
  // ready_from falls, to 0 at the end), before gradient_hook. Data-parallel training starts
  // the reduction of a bucket of gradients here while earlier layers still run backward.
  // After the last layer it is called again with ready_from 0, repeatedly, while the GPU
  // backends' copies of the gradients are on their way to host memory (so the caller can
  // move its own work on meanwhile), and once more when they have landed.
  std::function<void(std::size_t ready_from, GradientStaging& staging)> gradients_ready;
  // Marks each step's phases on a Timeline of the model's Context (gpgpu/timeline.hpp),
  // indexed by the steps done before it (Trainer::steps_done): "step" before the batch is
  // gathered, "backward queued" once the backward pass (and, with hooks, the last gradient
  // copy) is queued; with hooks also "gradients landed" and "gradients summed"; "update
  // queued" after the optimizer's. The Timeline must outlive the Trainer's use of it.
  Timeline* timeline = nullptr;
};

// Where an epoch stands, reported every report_every steps.
struct Progress {
  std::size_t epoch = 0, step = 0, steps = 0;  // the epoch, the step in it, its steps
  double loss = 0;               // mean loss over the steps since the last report
  double images_per_second = 0;  // since the epoch started
  double seconds = 0;            // since the epoch started
};

// The progress bar `gpgpu train` and the Python module's train() draw for a report (to be
// written after a carriage return): "  epoch 2/10 [###############               ]  50%
// 12345 img/s  loss 0.4321 ".
std::string progress_line(const Progress& progress, std::size_t epochs);

// What one epoch of training did.
struct EpochResult {
  std::size_t epoch = 0;  // counted from 0
  LossStats stats;        // training loss and accuracy over the epoch's batches
  double seconds = 0;     // wall time, from the first dispatch to the final read
  double learning_rate = 0;  // the rate the epoch used
  std::size_t steps = 0;     // optimizer steps taken
  std::vector<double> loss_curve;  // the mean loss of each report interval
};

namespace detail {
struct TrainerState;
}

// Trains a Sequential model on a DeviceDataset, one epoch per run_epoch().
class Trainer {
 public:
  // Builds (or reuses) the model's kernels for options.batch in Train mode, and the
  // optimizer's state (zeros). Throws ArgumentError when the data does not fit the model
  // (sample shape, classes), the batch is 0 or larger than the data set.
  Trainer(Sequential& model, const DeviceDataset& data, TrainOptions options);
  ~Trainer();
  // @{
  // Moves the trainer; a moved-from Trainer must not be used.
  Trainer(Trainer&&) noexcept;
  Trainer& operator=(Trainer&&) noexcept;
  // @}

  // Runs one epoch over the data in a fresh shuffled order.
  EpochResult run_epoch(const std::function<void(const Progress&)>& on_progress = {});
  std::size_t epochs_done() const;      // epochs run so far
  std::size_t steps_done() const;       // optimizer steps so far, over all epochs
  const TrainOptions& options() const;  // as given

 private:
  std::unique_ptr<detail::TrainerState> state_;
};

// Classifies every sample of `data` in batches of `batch` (the last one partial), with the
// data on the device: loss and accuracy from the device accumulators, the predictions read
// once at the end, and the confusion matrix.
Evaluation evaluate(Sequential& model, const DeviceDataset& data, std::size_t batch = 1000);

}  // namespace gpgpu::nn
