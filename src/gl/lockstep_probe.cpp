#include "gl/lockstep_probe.hpp"

#include <optional>
#include <string>

#include "gl/probe_memo.hpp"
#include "gl/probe_program.hpp"

namespace gpgpu::detail {

namespace {

constexpr std::uint32_t group = 64;

// Each invocation sets its flag, then counts the flags set so far (no barrier between).
constexpr const char* probe_source = R"(#version 310 es
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Seen { uint seen[64]; };
shared uint flag[64];
void main() {
  uint i = gl_LocalInvocationIndex;
  flag[i] = 0u;
  barrier();
  flag[i] = 1u;
  memoryBarrierShared();
  uint n = 0u;
  for (uint k = 0u; k < 64u; ++k) n += flag[k];
  seen[i] = n;
}
)";

// W when every count is (i / W + 1) * W for one W in 4..32, else 0.
int lockstep_width(const std::vector<std::uint32_t>& seen) {
  if (seen.size() != group) return 0;
  const std::uint32_t width = seen[0];
  if (width < 4 || width > 32 || (width & (width - 1)) != 0) return 0;
  for (std::uint32_t i = 0; i < group; ++i) {
    if (seen[i] != (i / width + 1) * width) return 0;
  }
  return static_cast<int>(width);
}

std::optional<std::string> probe() {
  const ProbeProgram program(probe_source);
  const auto seen = run_probe(program, {}, group);
  if (seen.empty()) return std::nullopt;
  return std::to_string(lockstep_width(seen));
}

}  // namespace

int measure_lockstep_width(const DeviceInfo& info, const PlatformTraits& platform) {
  if (!platform.gles31) return 0;
  return probe_count("lockstep-width", info, probe);
}

}  // namespace gpgpu::detail
