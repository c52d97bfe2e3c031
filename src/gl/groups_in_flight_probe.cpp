#include "gl/groups_in_flight_probe.hpp"

#include <optional>
#include <string>

#include "gl/probe_memo.hpp"
#include "gl/probe_program.hpp"

namespace gpgpu::detail {

namespace {

constexpr std::uint32_t groups = 2048;

// inside: the groups in flight now; most: the highest count seen. The loop (under the 65,535
// iterations of Mesa's CPU drivers' loop cap) keeps a group in flight for some microseconds
// on a GPU, long enough for the others to start; its result is kept so that it stays.
constexpr const char* probe_source = R"(#version 310 es
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Count { uint inside; uint most; uint sink; };
void main() {
  atomicMax(most, atomicAdd(inside, 1u) + 1u);
  uint x = gl_WorkGroupID.x;
  for (uint t = 0u; t < 4000u; ++t) x = x * 1664525u + 1013904223u;
  atomicMax(most, atomicAdd(inside, 0u));
  if (x == 0xFFFFFFFFu) sink = x;
  atomicAdd(inside, 0xFFFFFFFFu);
}
)";

std::optional<std::string> probe() {
  const ProbeProgram program(probe_source);
  const auto counts = run_probe(program, {}, 3, groups, 0u);
  if (counts.size() != 3 || counts[1] == 0 || counts[1] > groups) return std::nullopt;
  return std::to_string(counts[1]);
}

}  // namespace

int measure_groups_in_flight(const DeviceInfo& info, const PlatformTraits& platform) {
  if (!platform.gles31) return 0;
  return probe_count("groups-in-flight", info, probe);
}

}  // namespace gpgpu::detail
