// Host-side loss helpers: the float64 softmax cross-entropy and confusion matrices.
#include "gpgpu/nn/loss.hpp"

#include <cmath>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::nn {

std::vector<std::size_t> confusion_matrix(std::span<const int> predictions,
                                          std::span<const int> labels, std::size_t classes) {
  if (predictions.size() != labels.size()) {
    throw SizeMismatchError(fmt::format("confusion_matrix: {} predictions but {} labels",
                                        predictions.size(), labels.size()));
  }
  std::vector<std::size_t> matrix(classes * classes, 0);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto y = static_cast<std::size_t>(labels[i]);
    const auto p = static_cast<std::size_t>(predictions[i]);
    if (labels[i] < 0 || predictions[i] < 0 || y >= classes || p >= classes) {
      throw ArgumentError(fmt::format(
          "confusion_matrix: sample {} has label {} and prediction {}; both must be in [0, {})", i,
          labels[i], predictions[i], classes));
    }
    ++matrix[y * classes + p];
  }
  return matrix;
}

SampleLoss softmax_cross_entropy(std::span<const float> logits, int label) {
  if (logits.empty() || label < 0 || static_cast<std::size_t>(label) >= logits.size()) {
    throw ArgumentError(
        fmt::format("softmax_cross_entropy: label {} for {} logits", label, logits.size()));
  }
  SampleLoss out;
  double largest = logits[0];
  for (std::size_t j = 1; j < logits.size(); ++j) {
    if (logits[j] > largest) {
      largest = logits[j];
      out.predicted = static_cast<int>(j);
    }
  }
  double sum = 0;
  for (float z : logits) sum += std::exp(static_cast<double>(z) - largest);
  out.loss =
      std::log(sum) - (static_cast<double>(logits[static_cast<std::size_t>(label)]) - largest);
  out.gradient.resize(logits.size());
  for (std::size_t j = 0; j < logits.size(); ++j) {
    out.gradient[j] = std::exp(static_cast<double>(logits[j]) - largest) / sum -
                      (static_cast<int>(j) == label ? 1.0 : 0.0);
  }
  return out;
}

}  // namespace gpgpu::nn
