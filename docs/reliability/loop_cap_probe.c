// The measurements of docs/reliability.md section 1: how many iterations llvmpipe lets one
// compute-shader invocation run (one loop, nested loops, loops in sequence, while (true)),
// and whether a dispatch returns before its work is done. A stand-alone EGL program:
//   gcc docs/reliability/loop_cap_probe.c -o loop_cap_probe -lEGL -lGLESv2 && ./loop_cap_probe
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl31.h>
#include <stdio.h>
#include <time.h>

static const char* source =
    "#version 310 es\n"
    "layout(local_size_x = 1) in;\n"
    "layout(std430, binding = 0) buffer Counts { uint counts[4]; };\n"
    "uniform uint trips;\n"
    "uniform uint mode;\n"
    "void main() {\n"
    "  uint count = 0u;\n"
    "  if (mode == 0u) {\n"
    "    for (uint i = 0u; i < trips; ++i) count += 1u;\n"
    "  } else if (mode == 1u) {\n"
    "    for (uint i = 0u; i < trips; ++i) for (uint j = 0u; j < trips; ++j) count += 1u;\n"
    "  } else if (mode == 2u) {\n"
    "    for (uint i = 0u; i < trips; ++i) count += 1u;\n"
    "    for (uint i = 0u; i < trips; ++i) count += 1u;\n"
    "  } else {\n"
    "    while (true) { count += 1u; if (count == 0u) break; }\n"
    "  }\n"
    "  counts[mode] = count;\n"
    "}\n";

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(void) {
  PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
      (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
  EGLDisplay display = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
  eglInitialize(display, NULL, NULL);
  eglBindAPI(EGL_OPENGL_ES_API);
  const EGLint attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1,
                               EGL_NONE};
  EGLContext context = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attributes);
  eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context);
  printf("%s\n", (const char*)glGetString(GL_RENDERER));

  GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
  glShaderSource(shader, 1, &source, NULL);
  glCompileShader(shader);
  GLuint program = glCreateProgram();
  glAttachShader(program, shader);
  glLinkProgram(program);
  glUseProgram(program);
  GLuint buffer;
  glGenBuffers(1, &buffer);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffer);
  glBufferData(GL_SHADER_STORAGE_BUFFER, 16, NULL, GL_DYNAMIC_COPY);

  const char* names[4] = {"one loop of 1048576", "1024 nested in 1024", "two loops of 40000",
                          "while (true)"};
  const unsigned trips[4] = {1u << 20, 1024, 40000, 0};
  for (unsigned mode = 0; mode < 4; ++mode) {
    glUniform1ui(glGetUniformLocation(program, "trips"), trips[mode]);
    glUniform1ui(glGetUniformLocation(program, "mode"), mode);
    glDispatchCompute(1, 1, 1);
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    const unsigned* counts = glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, 16, GL_MAP_READ_BIT);
    printf("%-22s ran %u iterations\n", names[mode], counts[mode]);
    glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
  }
  // 4096 invocations of the whole budget: does the dispatch call return before the work ends?
  glUniform1ui(glGetUniformLocation(program, "trips"), 1u << 20);
  glUniform1ui(glGetUniformLocation(program, "mode"), 0);
  const double start = now_ms();
  glDispatchCompute(4096, 1, 1);
  const double dispatched = now_ms();
  glFinish();
  printf("4096 invocations: glDispatchCompute took %.1f ms, glFinish after it %.1f ms\n",
         dispatched - start, now_ms() - dispatched);
  eglTerminate(display);
  return 0;
}
