// A research probe, not part of the library (docs/primitives-internals.md cites it; COMMAND
// says how it was built):
//   buffer_probe LOG2N...   GPU time (median of 9 after 3, GL timer queries) of a GLSL vec4
//                           copy, a fill and a read-only sum over 2^LOG2N floats, for each
//                           way of creating the two buffers: glBufferData with each usage
//                           hint, and glBufferStorageEXT with no flags. Prints GB/s (copy:
//                           8 bytes an element; fill and sum: 4).
// It asks whether the way a GL buffer is created sets the bandwidth of large buffers.
#include <EGL/egl.h>
#include <GLES3/gl32.h>
#include <GLES2/gl2ext.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpgpu/gpgpu.hpp"

namespace {

GLuint program(const char* body, int local = 256) {
  const std::string src = "#version 310 es\nlayout(local_size_x = " + std::to_string(local) +
                          ") in;\n" +
                          "layout(std430, binding = 0) buffer A { vec4 a[]; };\n"
                          "layout(std430, binding = 1) buffer B { vec4 b[]; };\n"
                          "uniform uint n4;\n" +
                          body;
  const char* text = src.c_str();
  GLuint s = glCreateShader(GL_COMPUTE_SHADER);
  glShaderSource(s, 1, &text, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048];
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    std::fprintf(stderr, "compile: %s\n", log);
    std::exit(1);
  }
  GLuint p = glCreateProgram();
  glAttachShader(p, s);
  glLinkProgram(p);
  glDeleteShader(s);
  return p;
}

struct Way {
  const char* name;
  GLenum usage;  // 0: glBufferStorageEXT
};

GLuint make_buffer(const Way& w, GLsizeiptr bytes) {
  using Storage = void (*)(GLenum, GLsizeiptr, const void*, GLbitfield);
  static const auto storage = reinterpret_cast<Storage>(eglGetProcAddress("glBufferStorageEXT"));
  GLuint id = 0;
  glGenBuffers(1, &id);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, id);
  if (w.usage != 0) {
    glBufferData(GL_SHADER_STORAGE_BUFFER, bytes, nullptr, w.usage);
  } else if (storage != nullptr) {
    storage(GL_SHADER_STORAGE_BUFFER, bytes, nullptr, 0);
  }
  return id;
}

// Median GPU ms of 9 dispatches (after 3) of p over n4 vec4s in `groups` work groups (by
// default one invocation a vec4, in rows of 65535 groups).
double time_ms(GLuint p, GLuint n4, GLuint groups = 0) {
  glUseProgram(p);
  glUniform1ui(glGetUniformLocation(p, "n4"), n4);
  if (groups == 0) groups = (n4 + 255) / 256;
  using Result = void (*)(GLuint, GLenum, GLuint64*);
  static const auto result =
      reinterpret_cast<Result>(eglGetProcAddress("glGetQueryObjectui64vEXT"));
  std::vector<double> ms;
  GLuint q = 0;
  glGenQueries(1, &q);
  for (int r = 0; r < 12; ++r) {
    glBeginQuery(GL_TIME_ELAPSED_EXT, q);
    glDispatchCompute(std::min<GLuint>(groups, 65535), (groups + 65534) / 65535, 1);
    glEndQuery(GL_TIME_ELAPSED_EXT);
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    GLuint64 ns = 0;
    result(q, GL_QUERY_RESULT, &ns);
    if (r >= 3) ms.push_back(static_cast<double>(ns) * 1e-6);
  }
  glDeleteQueries(1, &q);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  gpgpu::Context ctx;
  std::printf("%s\n", ctx.info().renderer.c_str());
  // Row-major 2D dispatch: invocation i = y * 65535 * 256 + x.
  const char* index = "uint i = gl_GlobalInvocationID.y * 65535u * 256u + gl_GlobalInvocationID.x;\n";
  const GLuint copy = program((std::string("void main() {") + index +
                               "if (i < n4) b[i] = a[i]; }").c_str());
  const GLuint fill = program((std::string("void main() {") + index +
                               "if (i < n4) b[i] = vec4(float(i)); }").c_str());
  const GLuint sum = program((std::string("void main() {") + index +
                              "if (i >= n4) return; vec4 v = a[i];"
                              "if (v.x == 12345.0) b[0] = v; }").c_str());
  // One 8192-float tile a work group of 512, four vec4 an invocation (the scan's tile), and
  // a fixed grid of groups striding over the array.
  const GLuint tiles = program(
      "void main() { uint t = gl_WorkGroupID.y * 65535u + gl_WorkGroupID.x;"
      "for (uint k = 0u; k < 4u; ++k) { uint i = t * 2048u + k * 512u + gl_LocalInvocationID.x;"
      "if (i < n4) b[i] = a[i]; } }",
      512);
  const GLuint strided = program(
      "void main() { uint step = gl_NumWorkGroups.x * 256u;"
      "for (uint i = gl_GlobalInvocationID.x; i < n4; i += step) b[i] = a[i]; }");
  const Way ways[] = {{"DYNAMIC_COPY", GL_DYNAMIC_COPY}, {"STATIC_DRAW", GL_STATIC_DRAW},
                      {"STATIC_COPY", GL_STATIC_COPY},   {"DYNAMIC_DRAW", GL_DYNAMIC_DRAW},
                      {"STREAM_COPY", GL_STREAM_COPY},   {"storage(0)", 0}};
  std::printf("log2n  buffers        copy GB/s  fill GB/s  read GB/s  tiles GB/s  "
              "grid 1056  grid 4224\n");
  for (int a = 1; a < argc; ++a) {
    const int log2n = std::atoi(argv[a]);
    const GLsizeiptr bytes = GLsizeiptr(4) << log2n;
    const auto n4 = static_cast<GLuint>(bytes / 16);
    for (const Way& w : ways) {
      const GLuint src = make_buffer(w, bytes), dst = make_buffer(w, bytes);
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, dst);  // fill the source first
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, src);
      time_ms(fill, n4);
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, src);
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, dst);
      const double c = time_ms(copy, n4), f = time_ms(fill, n4), s = time_ms(sum, n4);
      const GLuint tile_count = (n4 + 2047) / 2048;
      const double t = time_ms(tiles, n4, tile_count);
      const double g1 = time_ms(strided, n4, 1056), g4 = time_ms(strided, n4, 4224);
      const double gb = static_cast<double>(bytes) * 1e-6;
      std::printf("%5d  %-13s %10.0f %10.0f %10.0f %11.0f %10.0f %10.0f\n", log2n, w.name,
                  2 * gb / c, gb / f, gb / s, 2 * gb / t, 2 * gb / g1, 2 * gb / g4);
      glDeleteBuffers(1, &src);
      glDeleteBuffers(1, &dst);
    }
  }
  return glGetError() == GL_NO_ERROR ? 0 : 1;
}
