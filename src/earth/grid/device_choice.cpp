// Auto's sweep timings in the disk cache (see device_choice.hpp).
#include "earth/grid/device_choice.hpp"

#include <cstdio>

#include <fmt/format.h>

#include "gpgpu/cache.hpp"

namespace gpgpu::earth::detail {

namespace {

cache::Store timings() {
  return cache::Store("earth-grid-device", 1, 1 << 20);
}

}  // namespace

std::optional<SweepTiming> recalled_timing(const std::string& device) {
  const auto bytes = timings().load(device);
  if (!bytes) return std::nullopt;
  const std::string text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  SweepTiming t;
  if (std::sscanf(text.c_str(), "level %d cpu_ms %lf gpu_ms %lf", &t.level, &t.cpu_ms, &t.gpu_ms) !=
      3) {
    return std::nullopt;
  }
  return t;
}

void remember_timing(const std::string& device, const SweepTiming& t) {
  const std::string text = fmt::format("level {} cpu_ms {} gpu_ms {}", t.level, t.cpu_ms, t.gpu_ms);
  timings().store(device, std::as_bytes(std::span(text.data(), text.size())));
}

}  // namespace gpgpu::earth::detail
