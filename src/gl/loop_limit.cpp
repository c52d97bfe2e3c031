#include "gl/loop_limit.hpp"

#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "gl/gl_buffer.hpp"
#include "gl/gl_name.hpp"
#include "gpgpu/cache.hpp"
#include "gpgpu/error.hpp"

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

struct ScopedProgram {
  GLuint id = 0;
  ~ScopedProgram() {
    if (id != 0) glDeleteProgram(id);
  }
};
struct ScopedShader {
  GLuint id = 0;
  ~ScopedShader() {
    if (id != 0) glDeleteShader(id);
  }
};

// The two counts, or {0, 0} when the probe cannot be compiled.
std::pair<std::uint32_t, std::uint32_t> run_probe() {
  ScopedShader shader{GL(glCreateShader(GL_COMPUTE_SHADER))};
  GL(glShaderSource(shader.id, 1, &probe_source, nullptr));
  GL(glCompileShader(shader.id));
  GLint ok = GL_FALSE;
  GL(glGetShaderiv(shader.id, GL_COMPILE_STATUS, &ok));
  if (ok != GL_TRUE) return {0, 0};
  ScopedProgram program{GL(glCreateProgram())};
  GL(glAttachShader(program.id, shader.id));
  GL(glLinkProgram(program.id));
  GL(glGetProgramiv(program.id, GL_LINK_STATUS, &ok));
  if (ok != GL_TRUE) return {0, 0};
  const std::uint32_t poison[2] = {0xFFFFFFFFu, 0xFFFFFFFFu};
  // Deleted in the current context (no ContextState exists yet while probing).
  const GlBuffer counts(nullptr, create_gl_buffer(sizeof poison, poison, GL_DYNAMIC_COPY));
  GL(glUseProgram(program.id));
  GL(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, counts.id()));
  const GLint trips = glGetUniformLocation(program.id, "trips");
  const GLint mode = glGetUniformLocation(program.id, "mode");
  GL(glUniform1ui(trips, single_trips));
  GL(glUniform1ui(mode, 0u));
  GL(glDispatchCompute(1, 1, 1));
  GL(glUniform1ui(trips, nested_trips));
  GL(glUniform1ui(mode, 1u));
  GL(glDispatchCompute(1, 1, 1));
  GL(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0));
  GL(glUseProgram(0));
  std::uint32_t result[2] = {0, 0};
  read_gl_buffer(counts.id(), 0, sizeof result, result);
  return {result[0], result[1]};
}

// The limit, or nothing when the probe could not run (then no cap is reported, and nothing
// is kept on disk).
std::optional<LoopLimit> probe() {
  LoopLimit limit;
  limit.probe_iterations = single_trips;
  std::pair<std::uint32_t, std::uint32_t> counts{0, 0};
  try {
    counts = run_probe();
  } catch (const Error&) {
    glUseProgram(0);
    glGetError();
    return std::nullopt;
  }
  const auto [single, nested] = counts;
  if (single == 0) return std::nullopt;
  if (single > 0 && single < single_trips) limit.max_iterations = single;
  // A loop nested in another of the same length should run trips^2 times in all; fewer,
  // and about as many as a single loop, means one budget for all loops.
  limit.shared_by_all_loops = limit.max_iterations > 0 && nested < nested_trips * nested_trips;
  return limit;
}

// The probe's answer for a device and driver, kept on disk (the "loop-limit" store) so that
// later processes skip the compile and the dispatches: "max shared probe".
cache::Store disk() {
  return cache::Store("loop-limit", 1, 1u << 20);
}

std::optional<LoopLimit> stored_limit(const std::string& key) {
  const auto bytes = disk().load(key);
  if (!bytes) return std::nullopt;
  const std::string text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  long long max = 0, probe = 0;
  int shared = 0;
  if (std::sscanf(text.c_str(), "%lld %d %lld", &max, &shared, &probe) != 3 || max < 0 ||
      probe != single_trips) {
    return std::nullopt;
  }
  return LoopLimit{max, shared != 0, probe};
}

void store_limit(const std::string& key, const LoopLimit& limit) {
  const std::string text = fmt::format("{} {} {}", limit.max_iterations,
                                       limit.shared_by_all_loops ? 1 : 0, limit.probe_iterations);
  disk().store(key, std::as_bytes(std::span(text.data(), text.size())));
}

}  // namespace

LoopLimit measure_loop_limit(const DeviceInfo& info, const PlatformTraits& platform) {
  if (!platform.gles31) return {};
  // Contexts on the same device and driver share the answer: the probe costs a compile and
  // two dispatches, and a process may make thousands of Contexts.
  static std::mutex mutex;
  static auto* cache = new std::map<std::string, LoopLimit>();  // never destroyed: used at exit
  const std::string key = "loop limit\n" + cache::device_key(info);
  std::lock_guard lock(mutex);
  if (auto it = cache->find(key); it != cache->end()) return it->second;
  if (const auto stored = stored_limit(key)) {
    cache->emplace(key, *stored);
    return *stored;
  }
  const auto measured = probe();
  const LoopLimit limit = measured.value_or(LoopLimit{0, false, single_trips});
  cache->emplace(key, limit);
  if (measured) store_limit(key, limit);
  return limit;
}

}  // namespace gpgpu::detail
