#include "gl/loop_limit.hpp"

#include <cstdio>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "gl/probe_memo.hpp"
#include "gl/probe_program.hpp"

namespace gpgpu::detail {

namespace {

// One invocation counts the iterations it actually runs: of one loop of `trips` (mode 0),
// or of a loop of `trips` nested in another of `trips` (mode 1).
constexpr const char* probe_source = R"(#version 310 es
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Counts { uint counts[2]; };
uniform uint trips;
uniform uint mode;
void main() {
  uint count = 0u;
  if (mode == 0u) {
    for (uint i = 0u; i < trips; ++i) count += 1u;
  } else {
    for (uint i = 0u; i < trips; ++i) {
      for (uint j = 0u; j < trips; ++j) count += 1u;
    }
  }
  counts[mode] = count;
}
)";

// 2^20 iterations: far past llvmpipe's 65535, and about a millisecond on a GPU.
constexpr std::uint32_t single_trips = 1u << 20;
constexpr std::uint32_t nested_trips = 1u << 10;

// The limit as "max shared probe", or nothing when the probe could not run (then no cap is
// reported, and nothing is kept on disk).
std::optional<std::string> probe() {
  const ProbeProgram program(probe_source);
  const auto single = run_probe(program, {{"trips", single_trips}, {"mode", 0u}}, 2);
  const auto nested = run_probe(program, {{"trips", nested_trips}, {"mode", 1u}}, 2);
  if (single.empty() || nested.empty() || single[0] == 0 || single[0] == 0xFFFFFFFFu) {
    return std::nullopt;
  }
  LoopLimit limit;
  limit.probe_iterations = single_trips;
  if (single[0] < single_trips) limit.max_iterations = single[0];
  // A loop nested in another of the same length should run trips^2 times in all; fewer,
  // and about as many as a single loop, means one budget for all loops.
  limit.shared_by_all_loops = limit.max_iterations > 0 && nested[1] < nested_trips * nested_trips;
  return fmt::format("{} {} {}", limit.max_iterations, limit.shared_by_all_loops ? 1 : 0,
                     limit.probe_iterations);
}

std::optional<LoopLimit> parse(const std::string& text) {
  long long max = 0, probe = 0;
  int shared = 0;
  if (std::sscanf(text.c_str(), "%lld %d %lld", &max, &shared, &probe) != 3 || max < 0 ||
      probe != single_trips) {
    return std::nullopt;
  }
  return LoopLimit{max, shared != 0, probe};
}

}  // namespace

LoopLimit measure_loop_limit(const DeviceInfo& info, const PlatformTraits& platform) {
  if (!platform.gles31) return {};
  // Contexts on the same device and driver share the answer: the probe costs a compile and
  // two dispatches, and a process may make thousands of Contexts.
  const ProbeRecord record{"loop-limit", 2,
                           [](const std::string& t) { return parse(t).has_value(); }};
  const std::string answer = probe_answer(record, info, probe, fmt::format("0 0 {}", single_trips));
  return parse(answer).value_or(LoopLimit{0, false, single_trips});
}

}  // namespace gpgpu::detail
