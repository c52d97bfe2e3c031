// Internal: Auto's timing of a spring sweep on the CPU and on the GPU (springs.cpp), kept in
// the disk cache (store "earth-grid-device") so that only a machine's first Auto build pays
// for it: on a machine without a GPU, making a context to time llvmpipe costs as much as a
// level-6 grid. GPGPU_CACHE=off times every build.
#pragma once

#include <optional>
#include <string>

namespace gpgpu::earth::detail {

struct SweepTiming {
  int level = 0;                    // where it was timed
  double cpu_ms = -1, gpu_ms = -1;  // per sweep
  bool gpu_faster() const { return gpu_ms >= 0 && gpu_ms < cpu_ms; }
};

// `device` names the GPU, the CPU threads and the level the timing belongs to.
std::optional<SweepTiming> recalled_timing(const std::string& device);
void remember_timing(const std::string& device, const SweepTiming& timing);

}  // namespace gpgpu::earth::detail
