// Internal: with GPGPU_NN_PROFILE=1 in the environment, plans wait for the device around
// every stage and print where the time went when they are destroyed (a diagnostic: the
// waits themselves slow training down).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "gpgpu/context.hpp"

namespace gpgpu::nn::detail {

class StageTimer {
 public:
  StageTimer(const Context& context, std::string title)
      : context_(&context), title_(std::move(title)) {
    const char* env = std::getenv("GPGPU_NN_PROFILE");
    enabled_ = env != nullptr && *env != '\0' && *env != '0';
  }
  ~StageTimer() { print(); }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

  // Whether GPGPU_NN_PROFILE asked for stage times (then every stage runs on its own).
  bool enabled() const { return enabled_; }

  template <class F>
  void time(const std::string& name, F&& work) {
    if (!enabled_) {
      work();
      return;
    }
    context_->finish();
    const auto start = std::chrono::steady_clock::now();
    work();
    context_->finish();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    entries_[name].push_back(seconds);
  }

 private:
  // Every call's seconds, per stage: the median skips autotuning's first calls.
  using Entry = std::vector<double>;
  static double median_of(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  }
  void print() const {
    if (!enabled_ || entries_.empty()) return;
    double total = 0;
    std::vector<std::pair<double, std::string>> rows;
    for (const auto& [name, e] : entries_) {
      const double seconds = std::accumulate(e.begin(), e.end(), 0.0);
      total += seconds;
      rows.emplace_back(seconds, name);
    }
    std::sort(rows.rbegin(), rows.rend());
    std::fprintf(stderr,
                 "gpgpu nn profile: %s (%.3f s waited on in all; the median call leaves out "
                 "the first calls' autotuning)\n",
                 title_.c_str(), total);
    for (const auto& [seconds, name] : rows) {
      const auto& e = entries_.at(name);
      const auto calls = e.size();
      std::fprintf(stderr, "  %8.3f s %5.1f%%  %8zu calls %10.1f us/call %10.1f us median  %s\n",
                   seconds, 100 * seconds / total, calls,
                   1e6 * seconds / static_cast<double>(calls), 1e6 * median_of(e), name.c_str());
    }
  }

  const Context* context_;
  std::string title_;
  bool enabled_ = false;
  std::map<std::string, Entry> entries_;
};

}  // namespace gpgpu::nn::detail
