// Reproducer: a compute dispatch runs with the uniform values of an earlier one.
//
// Two programs of one source count to their uniform `trips`. Dispatched in the order a(1)
// b(1) a(1) b(1) a(5) b(5) a(5), the last dispatch of `a` counts 1 on Mesa 22.3's zink over
// lavapipe: zink inlines uniforms that loops test (on CPU devices by default), and after a
// switch of compute program zink_bind_cs_state never restores the program's module hash, so
// the pipeline cached for "no module" (built for trips = 1) is reused. ZINK_INLINE_UNIFORMS=
// false makes it count 5. Mesa keeps compiled shaders on disk keyed by source, so the source
// carries the process id to be compiled under the current settings.
// Exit status: 0 when every count is right, 1 when one is not.
#include <unistd.h>

#include <string>

#include "egl_setup.hpp"
#include "gl_helpers.hpp"

namespace {

unsigned count_to(GLuint program, unsigned trips) {
  GLuint buffer = 0;
  glGenBuffers(1, &buffer);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffer);
  glBufferData(GL_SHADER_STORAGE_BUFFER, 4, nullptr, GL_DYNAMIC_COPY);
  glUseProgram(program);
  glUniform1ui(glGetUniformLocation(program, "trips"), trips);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffer);
  glDispatchCompute(1, 1, 1);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  const unsigned counted = *static_cast<const unsigned*>(
      glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, 4, GL_MAP_READ_BIT));
  glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
  glDeleteBuffers(1, &buffer);
  return counted;
}

}  // namespace

int main() {
  const EglSetup egl;
  const std::string source = "#version 310 es\n// " + std::to_string(getpid()) + R"(
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Count { uint count; };
uniform uint trips;
void main() { uint n = 0u; for (uint t = 0u; t < trips; ++t) n += 1u; count = n; })";
  const GLuint a = compute_program(source.c_str()), b = compute_program(source.c_str());
  const struct {
    GLuint program;
    char name;
    unsigned trips;
  } runs[] = {{a, 'a', 1}, {b, 'b', 1}, {a, 'a', 1}, {b, 'b', 1},
              {a, 'a', 5}, {b, 'b', 5}, {a, 'a', 5}};
  int wrong = 0;
  for (const auto& r : runs) {
    const unsigned counted = count_to(r.program, r.trips);
    std::printf("%c(%u) counted %u%s\n", r.name, r.trips, counted,
                counted == r.trips ? "" : "  WRONG");
    wrong += counted != r.trips;
  }
  return wrong == 0 ? 0 : 1;
}
