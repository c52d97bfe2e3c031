// The last line of `gpgpu train` and `gpgpu predict`: where the run's wall time went, step
// by step (a short run's start-up cost is everything but its steady work).
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace gpgpu::cli {

class WallTimes {
 public:
  void lap(const char* step) {
    const auto now = std::chrono::steady_clock::now();
    laps_.emplace_back(step, std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }
  std::string to_string() const {
    std::string text;
    double total = 0;
    for (const auto& [step, seconds] : laps_) {
      text += fmt::format("{}{} {:.3f} s", text.empty() ? "" : ", ", step, seconds);
      total += seconds;
    }
    return fmt::format("time: {:.3f} s: {}\n", total, text);
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  std::vector<std::pair<const char*, double>> laps_;
};

}  // namespace gpgpu::cli
