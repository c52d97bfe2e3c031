// Records and gnuplot pictures of a training run or an evaluation (see nn_plots.hpp).
#include "nn_plots.hpp"

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gnuplot.hpp"
#include "gpgpu/error.hpp"
#include "text_file.hpp"

namespace gpgpu::cli {

namespace {

namespace fs = std::filesystem;

std::string gnuplot_string(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return out;
}

// A grid of the first images (up to 8 x 6) with "predicted (true)" under each, red if wrong.
std::string samples_script(const fs::path& out, const nn::Evaluation& e, const nn::Dataset& images,
                           const std::vector<std::string>& names) {
  const std::size_t columns = 8, rows = std::min<std::size_t>(
                                     6, (std::min<std::size_t>(images.count, 48) + 7) / 8);
  const std::size_t h = images.height, w = images.width, cell_h = h + 10, cell_w = w + 4;
  const std::size_t total_h = rows * cell_h, total_w = columns * cell_w;
  std::vector<int> grid(total_h * total_w, -1);
  std::string labels;
  for (std::size_t i = 0; i < std::min(rows * columns, images.count); ++i) {
    const std::size_t r = i / columns, c = i % columns;
    for (std::size_t y = 0; y < h; ++y) {
      for (std::size_t x = 0; x < w; ++x) {
        grid[(r * cell_h + y) * total_w + c * cell_w + x] =
            images.images[i * images.pixels_per_image() + y * w + x];
      }
    }
    const int predicted = e.predictions[i], truth = images.labels[i];
    const auto name = [&](int k) {
      return static_cast<std::size_t>(k) < names.size() ? names[static_cast<std::size_t>(k)]
                                                        : std::to_string(k);
    };
    labels += fmt::format("set label \"{}\" at {},{} center front font ',8' textcolor rgb '{}'\n",
                          gnuplot_string(name(predicted)),
                          static_cast<double>(c * cell_w) + static_cast<double>(w - 1) / 2.0,
                          static_cast<double>(r * cell_h + h) + 3.5,
                          predicted == truth ? "#1a7f37" : "#cf222e");
  }
  std::string matrix;
  for (std::size_t y = 0; y < total_h; ++y) {
    for (std::size_t x = 0; x < total_w; ++x)
      matrix += fmt::format("{} ", grid[y * total_w + x] < 0 ? 255 : 255 - grid[y * total_w + x]);
    matrix += "\n";
  }
  write_text(out / "samples.dat", matrix);
  return fmt::format(
      "set terminal pngcairo size {},{} noenhanced font 'DejaVu Sans,10'\n"
      "set output 'samples.png'\nunset key\nunset colorbox\nunset border\nunset xtics\nunset "
      "ytics\n"
      "set yrange [{}:-0.5]\nset xrange [-0.5:{}]\nset palette gray\nset cbrange [0:255]\n"
      "set title 'test images: predicted class (green right, red wrong)'\n{}"
      "plot 'samples.dat' matrix with image\nunset label\nreset\n",
      total_w * 5, total_h * 5 + 40, static_cast<double>(total_h) - 0.5,
      static_cast<double>(total_w) - 0.5, labels);
}

std::string confusion_script(const fs::path& out, const nn::Evaluation& e,
                             const std::vector<std::string>& names) {
  const std::size_t k = e.classes;
  std::string matrix, labels, tics;
  std::vector<std::size_t> row_totals(k, 0);
  for (std::size_t t = 0; t < k; ++t) {
    for (std::size_t p = 0; p < k; ++p) row_totals[t] += e.confusion[t * k + p];
  }
  for (std::size_t t = 0; t < k; ++t) {
    for (std::size_t p = 0; p < k; ++p) {
      const double share = row_totals[t] ? static_cast<double>(e.confusion[t * k + p]) /
                                               static_cast<double>(row_totals[t])
                                         : 0.0;
      matrix += fmt::format("{:.4f} ", share);
      if (e.confusion[t * k + p] > 0) {
        labels += fmt::format("set label '{}' at {},{} center front font ',8' textcolor rgb '{}'\n",
                              e.confusion[t * k + p], p, t, share > 0.5 ? "white" : "black");
      }
    }
    matrix += "\n";
    const std::string name = t < names.size() ? names[t] : std::to_string(t);
    tics += fmt::format("{}\"{}\" {}", t ? ", " : "", gnuplot_string(name), t);
  }
  write_text(out / "confusion.dat", matrix);
  return fmt::format(
      "set terminal pngcairo size 900,800 noenhanced font 'DejaVu Sans,10'\nset output "
      "'confusion.png'\n"
      "unset key\nset title 'confusion matrix ({} samples, accuracy {:.2f}%)'\nset xlabel "
      "'predicted'\n"
      "set ylabel 'true'\nset xtics ({}) rotate by 45 right\nset ytics ({})\nset yrange [{}:-0.5]\n"
      "set xrange [-0.5:{}]\nset palette defined (0 'white', 1 '#2f6db3')\nset cbrange [0:1]\n{}"
      "plot 'confusion.dat' matrix with image\nunset label\nreset\n",
      e.stats.count, 100 * e.accuracy(), tics, tics, static_cast<double>(k) - 0.5,
      static_cast<double>(k) - 0.5, labels);
}

std::string curve_script(const fs::path& out, const TrainHistory& h) {
  std::string curves = "# epoch train_loss test_loss train_accuracy test_accuracy\n", steps;
  for (const auto& e : h.epochs) {
    curves += fmt::format("{} {:.6f} {:.6f} {:.4f} {:.4f}\n", e.epoch + 1, e.train_loss,
                          e.test_loss, 100 * e.train_accuracy, 100 * e.test_accuracy);
  }
  for (const auto& [x, loss] : h.interval_losses) steps += fmt::format("{:.5f} {:.6f}\n", x, loss);
  write_text(out / "curves.dat", curves);
  write_text(out / "steps.dat", steps);
  const std::string title =
      gnuplot_string(fmt::format("{} on {}, batch {}, {}", h.net, h.data, h.batch, h.device));
  return fmt::format(
      "set terminal pngcairo size 1000,600 noenhanced font 'DejaVu Sans,11'\nset output "
      "'loss.png'\n"
      "set title \"loss: {}\"\nset xlabel 'epoch'\nset ylabel 'cross-entropy'\nset grid\nset key "
      "top right\n"
      "plot 'steps.dat' using 1:2 with lines lc rgb '#9ecae1' title 'training (per report "
      "interval)', "
      "'curves.dat' using 1:2 with linespoints lw 2 lc rgb '#2f6db3' title 'training (epoch "
      "mean)', "
      "'curves.dat' using 1:3 with linespoints lw 2 lc rgb '#d94801' title 'test'\n"
      "set output 'accuracy.png'\nset title \"accuracy: {}\"\nset ylabel 'accuracy (%)'\nset key "
      "bottom right\n"
      "plot 'curves.dat' using 1:4 with linespoints lw 2 lc rgb '#2f6db3' title 'training', "
      "'curves.dat' using 1:5 with linespoints lw 2 lc rgb '#d94801' title 'test'\nreset\n",
      title, title);
}

}  // namespace

void write_history(const fs::path& out, const TrainHistory& h) {
  nlohmann::json j{{"net", h.net},
                   {"device", h.device},
                   {"backend", h.backend},
                   {"data", h.data},
                   {"optimizer", h.optimizer},
                   {"command", h.command},
                   {"batch", h.batch},
                   {"train_images", h.train_count},
                   {"test_images", h.test_count},
                   {"parameters", h.parameters}};
  j["epochs"] = nlohmann::json::array();
  for (const auto& e : h.epochs) {
    j["epochs"].push_back({{"epoch", e.epoch + 1},
                           {"train_loss", e.train_loss},
                           {"train_accuracy", e.train_accuracy},
                           {"test_loss", e.test_loss},
                           {"test_accuracy", e.test_accuracy},
                           {"seconds", e.seconds},
                           {"images_per_second", e.images_per_second},
                           {"learning_rate", e.learning_rate},
                           {"eval_seconds", e.eval_seconds}});
  }
  write_text(out / "history.json", j.dump(2) + "\n");
}

void write_evaluation(const fs::path& out, const nn::Evaluation& e, const std::vector<int>& labels,
                      const std::vector<std::string>& names) {
  std::string confusion = "true\\predicted";
  for (std::size_t p = 0; p < e.classes; ++p)
    confusion += "," + (p < names.size() ? names[p] : std::to_string(p));
  confusion += "\n";
  for (std::size_t t = 0; t < e.classes; ++t) {
    confusion += t < names.size() ? names[t] : std::to_string(t);
    for (std::size_t p = 0; p < e.classes; ++p)
      confusion += fmt::format(",{}", e.confusion[t * e.classes + p]);
    confusion += "\n";
  }
  write_text(out / "confusion.csv", confusion);
  std::string predictions = "index,label,prediction\n";
  for (std::size_t i = 0; i < e.predictions.size(); ++i) {
    predictions +=
        fmt::format("{},{},{}\n", i, i < labels.size() ? labels[i] : -1, e.predictions[i]);
  }
  write_text(out / "predictions.csv", predictions);
}

std::string draw_plots(const fs::path& out, const TrainHistory* history,
                       const nn::Evaluation& evaluation, const nn::Dataset& images,
                       const std::vector<std::string>& class_names) {
  std::string script;
  std::vector<std::string> drawn;
  if (history != nullptr && !history->epochs.empty()) {
    script += curve_script(out, *history);
    drawn = {"loss.png", "accuracy.png"};
  }
  script += confusion_script(out, evaluation, class_names);
  script += samples_script(out, evaluation, images, class_names);
  drawn.insert(drawn.end(), {"confusion.png", "samples.png"});
  write_text(out / "plots.gp",
             "# Made by gpgpu; run `gnuplot plots.gp` in this directory to redraw.\n" + script);
  if (auto why = gnuplot::draw(out, "plots.gp"); !why.empty()) return why;
  return fmt::format("plots: {}", fmt::join(drawn, ", "));
}

std::vector<std::string> class_names_for(const fs::path& data_dir, std::size_t classes) {
  if (data_dir.string().find("fashion") != std::string::npos && classes == 10)
    return nn::fashion_mnist_classes();
  std::vector<std::string> names;
  for (std::size_t i = 0; i < classes; ++i) names.push_back(std::to_string(i));
  return names;
}

}  // namespace gpgpu::cli
