#include "gl/uniform_probe.hpp"

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>

#include "gl/probe_memo.hpp"
#include "gl/probe_program.hpp"

namespace gpgpu::detail {

namespace {

// Mesa keeps compiled shaders on disk keyed by their source, and a shader compiled while the
// driver did not build uniform variants comes back without them: the probe's source carries
// a line of its own (the time) so that it is compiled under the settings in force now.
constexpr const char* probe_body = R"(
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Count { uint count; };
uniform uint trips;
void main() {
  uint n = 0u;
  for (uint t = 0u; t < trips; ++t) n += 1u;
  count = n;
}
)";

// "1" when each dispatch counted to its own value, "0" when one did not.
std::optional<std::string> probe() {
  const std::string source =
      "#version 310 es\n// " +
      std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + probe_body;
  const ProbeProgram a(source.c_str()), b(source.c_str());
  if (a.id() == 0 || b.id() == 0) return std::nullopt;
  // Program a twice with 1 (across a switch), then with 5; then b and a again with 5: the
  // last dispatch of a counted 1 on zink 22.3 over lavapipe.
  const std::pair<const ProbeProgram*, std::uint32_t> runs[] = {{&a, 1}, {&b, 1}, {&a, 1}, {&b, 1},
                                                                {&a, 5}, {&b, 5}, {&a, 5}};
  for (const auto& [program, trips] : runs) {
    const auto count = run_probe(*program, {{"trips", trips}}, 1);
    if (count.empty()) return std::nullopt;
    if (count[0] != trips) return "0";
  }
  return "1";
}

}  // namespace

bool uniforms_reach_every_dispatch(const DeviceInfo& info, const PlatformTraits& platform) {
  if (!platform.gles31) return true;
  const char* inline_uniforms = std::getenv("ZINK_INLINE_UNIFORMS");
  const ProbeRecord record{"uniform-dispatch", 1,
                           [](const std::string& t) { return t == "0" || t == "1"; },
                           std::string("ZINK_INLINE_UNIFORMS ") +
                               (inline_uniforms != nullptr ? inline_uniforms : "(unset)")};
  return probe_answer(record, info, probe, "1") == "1";
}

}  // namespace gpgpu::detail
