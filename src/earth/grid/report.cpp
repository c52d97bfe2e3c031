// GridBuildReport's text: the per-stage table of `gpgpu earth --verbose` and its one line.
#include <fmt/format.h>

#include "gpgpu/earth/grid.hpp"

namespace gpgpu::earth {

std::string GridBuildReport::summary() const {
  if (source != "built") return fmt::format("read from the {} in {:.2f} s", source, seconds);
  int sweeps = 0, on_gpu = 0;
  for (const auto& l : levels) sweeps += l.sweeps, on_gpu += l.gpu_sweeps;
  const std::string where =
      2 * on_gpu > sweeps
          ? fmt::format("springs on the GPU ({}), the rest on {} CPU threads", gpu, threads)
          : fmt::format("on {} CPU threads", threads);
  return fmt::format("built {} in {:.2f} s", where, seconds);
}

std::string GridBuildReport::to_string() const {
  std::string out = fmt::format("grid build: {}\n", summary());
  if (!note.empty()) out += fmt::format("  note: {}\n", note);
  const double total = seconds > 0 ? seconds : 1;
  for (const auto& s : stages) {
    out +=
        fmt::format("  {:<16} {:>9.3f} s {:>5.1f}%\n", s.name, s.seconds, 100 * s.seconds / total);
  }
  if (levels.empty()) return out;
  out += fmt::format("  {:>5} {:>10} {:>8} {:>7} {:>7} {:>9} {:>11} {:>11}\n", "level", "points",
                     "device", "sweeps", "on GPU", "seconds", "CPU ms/sw", "GPU ms/sw");
  auto ms = [](double v) { return v < 0 ? std::string("-") : fmt::format("{:.3f}", v); };
  for (const auto& l : levels) {
    out += fmt::format("  {:>5} {:>10} {:>8} {:>7} {:>7} {:>9.3f} {:>11} {:>11}\n", l.level,
                       l.points, l.device, l.sweeps, l.gpu_sweeps, l.seconds, ms(l.cpu_sweep_ms),
                       ms(l.gpu_sweep_ms));
  }
  return out;
}

}  // namespace gpgpu::earth
