#include "gl/inline_work_probe.hpp"

#include <optional>
#include <string>

#include "gl/gl_buffer.hpp"
#include "gl/gl_name.hpp"
#include "gl/probe_memo.hpp"
#include "gl/probe_program.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::detail {

namespace {

// About a millisecond on one CPU core: 64 invocations of 60,000 dependent steps (under the
// 65,535-iteration loop cap of Mesa's CPU drivers).
constexpr const char* probe_source = R"(#version 310 es
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Out { float v[64]; };
void main() {
  float x = float(gl_LocalInvocationIndex);
  for (uint t = 0u; t < 60000u; ++t) x = x * 0.9999 + 0.0001;
  v[gl_LocalInvocationIndex] = x;
}
)";

// "1": the fence after the dispatch had signalled at once; "0": it was pending.
std::optional<std::string> probe() {
  const ProbeProgram program(probe_source);
  if (program.id() == 0) return std::nullopt;
  GLenum status = GL_WAIT_FAILED;
  try {
    const GlBuffer out(nullptr, create_gl_buffer(64 * 4, nullptr, GL_DYNAMIC_COPY));
    GL(glUseProgram(program.id()));
    GL(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, out.id()));
    GL(glDispatchCompute(1, 1, 1));
    GLsync fence = GL(glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0));
    status = glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, 0);
    glClientWaitSync(fence, 0, 10'000'000'000ull);  // the buffer outlives its last use
    glDeleteSync(fence);
    GL(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0));
    GL(glUseProgram(0));
  } catch (const Error&) {
    glUseProgram(0);
    glGetError();
    return std::nullopt;
  }
  if (status == GL_WAIT_FAILED) return std::nullopt;
  return status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED ? "1" : "0";
}

}  // namespace

bool measure_work_completes_in_call(const DeviceInfo& info, const PlatformTraits& platform) {
  if (!platform.gles31) return false;
  const ProbeRecord record{"work-in-call", 1,
                           [](const std::string& t) { return t == "0" || t == "1"; }};
  return probe_answer(record, info, probe, "0") == "1";
}

}  // namespace gpgpu::detail
