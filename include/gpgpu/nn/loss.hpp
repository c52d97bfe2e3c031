// gpgpu/nn/loss.hpp — softmax cross-entropy, and what training and evaluation measure.
//
// The loss of a sample with logits z (the model's outputs, or the input of a final Softmax
// layer) and label y over K classes is
//   L = log(sum_j exp(z_j - max z)) - (z_y - max z)        (= -log softmax(z)_y)
// and a batch's loss is the mean over its B samples, so the gradient that flows back is
//   dL/dz_j = (softmax(z)_j - [j == y]) / B.
// One kernel computes the softmax, the loss, this gradient, the predicted class (the first
// index of the largest logit) and adds the batch's loss sum and correct count to
// accumulators on the device; the host reads them once every few steps, never per step.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace gpgpu::nn {

// Sums over the samples seen: mean loss and accuracy.
struct LossStats {
  double loss_sum = 0;    // the losses summed
  double correct = 0;     // samples classified right
  std::size_t count = 0;  // samples seen
  // loss_sum / count (0 before any sample).
  double mean_loss() const { return count ? loss_sum / static_cast<double>(count) : 0.0; }
  // correct / count (0 before any sample).
  double accuracy() const { return count ? correct / static_cast<double>(count) : 0.0; }
};

// A labelled data set classified by a model.
struct Evaluation {
  LossStats stats;          // loss and accuracy
  std::size_t classes = 0;  // the model's classes
  std::vector<int> predictions;        // one class per sample, in data set order
  std::vector<std::size_t> confusion;  // classes x classes: [true label][predicted class]
  double seconds = 0;                  // wall time of the classification (data on the device)
  double accuracy() const { return stats.accuracy(); }  // the fraction classified right
};

// The confusion matrix of predictions against labels (each in [0, classes)).
std::vector<std::size_t> confusion_matrix(std::span<const int> predictions,
                                          std::span<const int> labels, std::size_t classes);

// The loss, gradient and prediction of one sample, in float64 on the CPU: what the device
// kernel computes, for tests and for checking a file of logits.
struct SampleLoss {
  double loss = 0;    // -log softmax(z)[label]
  int predicted = 0;  // the largest logit's class
  std::vector<double> gradient;  // softmax(z) - onehot(y), not divided by the batch size
};
// Softmax cross-entropy of `logits` against `label`, in float64.
SampleLoss softmax_cross_entropy(std::span<const float> logits, int label);

}  // namespace gpgpu::nn
