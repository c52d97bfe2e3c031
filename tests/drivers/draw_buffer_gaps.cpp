// Reproducer: GL_NONE draw buffers before integer targets corrupt the driver's memory.
//
// One draw into R32UI and RGBA32UI textures at colour attachments 2 and 3, with draw buffers
// {GL_NONE, GL_NONE, 2, 3} (legal in OpenGL ES 3.0: draw buffer i is GL_NONE or attachment
// i), the fragment shader writing float outputs at locations 0 and 1 and their bits at 2 and
// 3 (what gpgpu's fragment kernels did on a device without GL_EXT_color_buffer_float). On Mesa
// 22.3's zink over lavapipe the process dies with a segmentation fault, or (in a larger
// program) reads wrong values and corrupts the heap (valgrind: lavapipe's queue thread reads
// memory lavapipe freed); llvmpipe renders every value. With every location given a target
// (gpgpu's fix) zink renders them too.
// Exit status: 0 when every value came back, 1 when one did not; a crash shows the bug too.
#include <GLES3/gl31.h>

#include <cstring>
#include <vector>

#include "egl_setup.hpp"
#include "gl_helpers.hpp"

namespace {

constexpr int width = 53, height = 37;

// The red component of every texel of colour attachment `point`, as floats.
std::vector<float> read_red(GLenum point) {
  std::vector<GLuint> texels(width * height * 4);
  glReadBuffer(point);
  glReadPixels(0, 0, width, height, GL_RGBA_INTEGER, GL_UNSIGNED_INT, texels.data());
  std::vector<float> red(width * height);
  for (int i = 0; i < width * height; ++i) std::memcpy(&red[i], &texels[4 * i], 4);
  return red;
}

}  // namespace

int main() {
  const EglSetup egl;
  const FullScreenDraw fill(R"(#version 310 es
precision highp float;
layout(location = 0) out float c;
layout(location = 1) out vec4 d;
layout(location = 2) out highp uint c_bits;
layout(location = 3) out highp uvec4 d_bits;
void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  c = float(p.y * 53 + p.x + 1);
  d = vec4(c, -c, 1.0, 2.0);
  c_bits = floatBitsToUint(c);
  d_bits = floatBitsToUint(d);
})");
  framebuffer_of({{GL_COLOR_ATTACHMENT2, texture_2d(GL_R32UI, width, height)},
                  {GL_COLOR_ATTACHMENT3, texture_2d(GL_RGBA32UI, width, height)}});
  const GLenum draw_buffers[] = {GL_NONE, GL_NONE, GL_COLOR_ATTACHMENT2, GL_COLOR_ATTACHMENT3};
  glDrawBuffers(4, draw_buffers);
  glViewport(0, 0, width, height);
  fill.draw();
  int wrong = 0;
  for (const GLenum point : {GL_COLOR_ATTACHMENT2, GL_COLOR_ATTACHMENT3}) {
    const auto red = read_red(point);
    for (int i = 0; i < width * height; ++i) wrong += red[i] != static_cast<float>(i + 1);
  }
  std::printf("%d of %d values wrong\n", wrong, 2 * width * height);
  return wrong == 0 ? 0 : 1;
}
