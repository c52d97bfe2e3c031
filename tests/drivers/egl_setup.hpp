// A bare OpenGL ES 3.1 context on Mesa's surfaceless platform, for the driver reproducers in
// this folder (plain GL, no gpgpu: each shows a driver's behaviour on its own).
#pragma once

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl31.h>

#include <cstdio>
#include <cstdlib>

struct EglSetup {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  const EGLint attributes[5] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1,
                                EGL_NONE};

  EglSetup() {
    display = eglGetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, nullptr, nullptr) ||
        !eglBindAPI(EGL_OPENGL_ES_API)) {
      std::fprintf(stderr, "no EGL surfaceless display\n");
      std::exit(2);
    }
    context = shared_context(EGL_NO_CONTEXT);
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context);
    std::printf("%s\n", reinterpret_cast<const char*>(glGetString(GL_RENDERER)));
  }
  EGLContext shared_context(EGLContext share) const {
    EGLContext c = eglCreateContext(display, EGL_NO_CONFIG_KHR, share, attributes);
    if (c == EGL_NO_CONTEXT) {
      std::fprintf(stderr, "no OpenGL ES 3.1 context\n");
      std::exit(2);
    }
    return c;
  }
};
