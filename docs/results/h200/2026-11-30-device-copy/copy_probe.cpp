// Probe: GL compute write bandwidth vs read bandwidth, by buffer allocation mode.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl32.h>
#include <GLES2/gl2ext.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

static void die(const char* m) { std::fprintf(stderr, "fail: %s (gl 0x%x egl 0x%x)\n", m, glGetError(), eglGetError()); std::exit(1); }

static void make_context() {
  auto query = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
  auto platform = (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
  EGLDeviceEXT devs[8]; EGLint n = 0;
  if (!query || !query(8, devs, &n) || n == 0) die("devices");
  EGLDisplay d = EGL_NO_DISPLAY;
  for (int i = 0; i < n && d == EGL_NO_DISPLAY; ++i) {
    EGLDisplay c = platform(EGL_PLATFORM_DEVICE_EXT, devs[i], nullptr);
    EGLint ma, mi;
    if (c != EGL_NO_DISPLAY && eglInitialize(c, &ma, &mi)) d = c;
  }
  if (d == EGL_NO_DISPLAY) die("display");
  eglBindAPI(EGL_OPENGL_ES_API);
  EGLint ca[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_SURFACE_TYPE, 0, EGL_NONE}; EGLConfig cfg; EGLint nc;
  if (!eglChooseConfig(d, ca, &cfg, 1, &nc) || nc == 0) die("config");
  EGLint xa[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 2, EGL_NONE};
  EGLContext ctx = eglCreateContext(d, cfg, EGL_NO_CONTEXT, xa);
  if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) die("ctx");
  std::printf("renderer: %s\n", (const char*)glGetString(GL_RENDERER));
}

static GLuint program(const std::string& body) {
  std::string src = "#version 320 es\nprecision highp float;\nprecision highp int;\n" + body;
  const char* s = src.c_str();
  GLuint p = glCreateShaderProgramv(GL_COMPUTE_SHADER, 1, &s);
  GLint ok = 0; glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) { char log[4096]; glGetProgramInfoLog(p, 4096, nullptr, log); std::fprintf(stderr, "%s\n%s\n", log, src.c_str()); die("link"); }
  return p;
}

static GLuint buffer(size_t bytes, int mode) {
  static auto storage = (PFNGLBUFFERSTORAGEEXTPROC)eglGetProcAddress("glBufferStorageEXT");
  GLuint b; glGenBuffers(1, &b); glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
  const GLenum usages[] = {GL_DYNAMIC_COPY, GL_STATIC_DRAW, GL_STREAM_DRAW, GL_DYNAMIC_DRAW, GL_STATIC_COPY, GL_STREAM_COPY, GL_DYNAMIC_READ};
  if (mode < 7) glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)bytes, nullptr, usages[mode]);
  else { if (!storage) die("no storage"); storage(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)bytes, nullptr, mode == 7 ? 0 : GL_DYNAMIC_STORAGE_BIT_EXT); }
  if (glGetError()) die("alloc");
  return b;
}
static const char* mode_name(int m) {
  const char* n[] = {"BufferData DYNAMIC_COPY", "BufferData STATIC_DRAW", "BufferData STREAM_DRAW", "BufferData DYNAMIC_DRAW", "BufferData STATIC_COPY", "BufferData STREAM_COPY", "BufferData DYNAMIC_READ", "BufferStorage 0", "BufferStorage DYNAMIC"};
  return n[m];
}

static double time_ms(GLuint p, GLuint groups, int reps) {
  glUseProgram(p);
  for (int i = 0; i < 3; ++i) { glDispatchCompute(groups, 1, 1); glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT); }
  glFinish();
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) {
    auto a = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) { glDispatchCompute(groups, 1, 1); glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT); }
    glFinish();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count() / reps);
  }
  std::sort(t.begin(), t.end());
  return t[2];
}


// OP 0 fill, 1 copy, 2 read. PERSIST 0: group g owns the chunk [g*L*K, (g+1)*L*K) in K rows
// of L vec4s; PERSIST 1: G groups sweep rows of L vec4s, K rows loaded before any store.
static std::string kernel(int op, int local, int k, int persist) {
  std::string s = "#define OP " + std::to_string(op) + "\n#define L " + std::to_string(local) +
                  "u\n#define K " + std::to_string(k) + "\n#define PERSIST " + std::to_string(persist) + "\n";
  s += R"(layout(local_size_x = L) in;
layout(std430, binding = 0) restrict readonly buffer I { vec4 x[]; };
layout(std430, binding = 1) restrict writeonly buffer O { vec4 o[]; };
uniform uint rows;  // n / L
shared vec4 red[L];
void main() {
  uint lid = gl_LocalInvocationID.x;
  vec4 acc = vec4(0);
#if PERSIST
  uint G = gl_NumWorkGroups.x;
  for (uint r0 = gl_WorkGroupID.x * uint(K); r0 < rows; r0 += G * uint(K)) {
#else
  { uint r0 = gl_WorkGroupID.x * uint(K);
#endif
    vec4 v[K];
    for (int j = 0; j < K; ++j) {
      uint i = min(r0 + uint(j), rows - 1u) * L + lid;
#if OP == 0
      v[j] = vec4(float(i));
#else
      v[j] = x[i];
#endif
    }
    for (int j = 0; j < K; ++j) {
      uint i = (r0 + uint(j)) * L + lid;
      if (r0 + uint(j) >= rows) break;
#if OP == 2
      acc += v[j];
#else
      o[i] = v[j];
#endif
    }
  }
#if OP == 2
  if (acc.x == -1.2345f) o[gl_WorkGroupID.x] = acc;  // keeps the loads
#endif
}
)";
  return s;
}


static double time_copy_sub(GLuint a, GLuint b, size_t bytes) {
  glBindBuffer(GL_COPY_READ_BUFFER, a); glBindBuffer(GL_COPY_WRITE_BUFFER, b);
  for (int i = 0; i < 2; ++i) glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, (GLsizeiptr)bytes);
  glFinish();
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) {
    auto s0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 5; ++i) glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, (GLsizeiptr)bytes);
    glFinish();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s0).count() / 5);
  }
  std::sort(t.begin(), t.end());
  return t[2];
}

int main(int argc, char** argv) {
  make_context();
  for (size_t mib : {16, 64, 256, 1024}) {
    const size_t bytes = mib << 20, vec4s = bytes / 16;
    GLuint in = buffer(bytes, 0), out = buffer(bytes, 0);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, in);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, out);
    const double cs = time_copy_sub(in, out, bytes);
    std::printf("%zu MiB: glCopyBufferSubData %.3f ms %.0f GB/s (read + write)\n", mib, cs, 2.0 * bytes / cs / 1e6);
    struct C { int local, k; std::vector<int> gs; };
    std::vector<C> cs_list = {{128, 4, {1056, 2112, 3168}}, {128, 8, {1056, 2112}}, {256, 4, {264, 528, 792, 1056}}, {256, 8, {264, 528, 1056}},
                              {512, 2, {264, 528}}, {512, 4, {132, 264, 396, 528, 660}}, {1024, 2, {132, 264}}, {1024, 4, {132, 264}}};
    for (const C& c : cs_list) {
      GLuint p = program(kernel(1, c.local, c.k, 1));
      glUseProgram(p);
      const GLuint rows = (GLuint)(vec4s / c.local);
      glUniform1ui(glGetUniformLocation(p, "rows"), rows);
      std::printf("  copy local %4d K %d:", c.local, c.k);
      for (int g : c.gs) { const double ms = time_ms(p, (GLuint)g, 10); std::printf("  G %4d %5.0f", g, 2.0 * bytes / ms / 1e6); }
      GLuint pc = program(kernel(1, c.local, c.k, 0));
      glUseProgram(pc); glUniform1ui(glGetUniformLocation(pc, "rows"), rows);
      const double ms = time_ms(pc, rows / (GLuint)c.k, 10);
      std::printf("  | chunk %5.0f GB/s\n", 2.0 * bytes / ms / 1e6);
      glDeleteProgram(p); glDeleteProgram(pc);
    }
    GLuint bs[2] = {in, out}; glDeleteBuffers(2, bs); glFinish();
  }
  if (glGetError()) die("end");
  (void)argc; (void)argv;
  return 0;
}
