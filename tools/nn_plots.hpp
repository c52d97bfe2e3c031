// The pictures and records `gpgpu train` and `gpgpu predict` leave in their output directory:
// history.json and curves (loss and accuracy per epoch, loss per report interval), the
// confusion matrix, and a grid of test images with their predicted labels, drawn by gnuplot.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "gpgpu/nn.hpp"

namespace gpgpu::cli {

struct EpochRecord {
  std::size_t epoch = 0;
  double train_loss = 0, train_accuracy = 0, test_loss = 0, test_accuracy = 0;
  double seconds = 0, images_per_second = 0, learning_rate = 0, eval_seconds = 0;
};

struct TrainHistory {
  std::string net, device, backend, data, optimizer, command;
  std::size_t batch = 0, train_count = 0, test_count = 0, parameters = 0;
  std::vector<EpochRecord> epochs;
  std::vector<std::pair<double, double>> interval_losses;  // (epochs elapsed, mean loss)
};

// history.json: the run's settings and one record per epoch.
void write_history(const std::filesystem::path& out, const TrainHistory& history);
// confusion.csv and predictions.csv (index, label, prediction) of an evaluation.
void write_evaluation(const std::filesystem::path& out, const nn::Evaluation& evaluation,
                      const std::vector<int>& labels, const std::vector<std::string>& class_names);

// Writes the data files and plots.gp, and runs gnuplot on them if it is on the PATH: loss.png,
// accuracy.png (when there are epochs), confusion.png, samples.png. Returns a line saying
// what was drawn, or why not.
std::string draw_plots(const std::filesystem::path& out, const TrainHistory* history,
                       const nn::Evaluation& evaluation, const nn::Dataset& images,
                       const std::vector<std::string>& class_names);

// Class names for a data set: Fashion-MNIST's when the directory looks like it, else "0".."K-1".
std::vector<std::string> class_names_for(const std::filesystem::path& data_dir,
                                         std::size_t classes);

}  // namespace gpgpu::cli
