// Reproducer: a copy out of a pack buffer runs before the glReadPixels that filled it.
//
// One context: a draw fills two colour attachments (R32F, RGBA32F) with 2 x a texture's
// values; each attachment is read with glReadPixels into a pack buffer, which is then copied
// out in 4 KiB chunks through two buffers that the host maps after each chunk's fence (the
// way a staged read-back goes). On Mesa 22.3's zink over lavapipe about 3% of the rounds
// find a chunk still holding the previous round's pixels; none with ZINK_DEBUG=noreorder or
// GALLIUM_THREAD=0, none on llvmpipe. glMemoryBarrier after the glReadPixels does not help.
// Exit status: 0 when every round was right, 1 when one was not.
#include <GLES3/gl32.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "egl_setup.hpp"
#include "gl_helpers.hpp"

namespace {

constexpr int width = 53, height = 37, bytes = width * height * 16, chunk = 4096, rounds = 1000;

}  // namespace

int main() {
  const EglSetup egl;
  const FullScreenDraw doubling(R"(#version 310 es
precision highp float;
uniform highp sampler2D m;
layout(location = 0) out float r;
layout(location = 1) out vec4 q;
void main() { vec4 v = texelFetch(m, ivec2(gl_FragCoord.xy), 0); r = 2.0 * v.x; q = 2.0 * v; })");
  GLuint pack[2], slot[2];
  const GLuint source = texture_2d(GL_RGBA32F, width, height);
  framebuffer_of({{GL_COLOR_ATTACHMENT0, texture_2d(GL_R32F, width, height)},
                  {GL_COLOR_ATTACHMENT1, texture_2d(GL_RGBA32F, width, height)}});
  const GLenum attachments[2] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1};
  glDrawBuffers(2, attachments);
  glGenBuffers(2, pack);
  glGenBuffers(2, slot);
  for (int i = 0; i < 2; ++i) {
    glBindBuffer(GL_COPY_WRITE_BUFFER, pack[i]);
    glBufferData(GL_COPY_WRITE_BUFFER, bytes, nullptr, GL_DYNAMIC_COPY);
    glBindBuffer(GL_COPY_WRITE_BUFFER, slot[i]);
    glBufferData(GL_COPY_WRITE_BUFFER, chunk, nullptr, GL_STREAM_READ);
  }
  glViewport(0, 0, width, height);
  std::vector<float> values(width * height * 4), got(values.size());
  GLsync fence[2] = {nullptr, nullptr};
  int offset_of[2] = {0, 0};
  bool wanted[2] = {false, false};
  // Waits for slot s's chunk and keeps it if it belongs to attachment 1.
  auto retire = [&](int s) {
    if (fence[s] == nullptr) return;
    glClientWaitSync(fence[s], GL_SYNC_FLUSH_COMMANDS_BIT, 10'000'000'000ull);
    glDeleteSync(fence[s]);
    fence[s] = nullptr;
    glBindBuffer(GL_COPY_READ_BUFFER, slot[s]);
    const void* m = glMapBufferRange(GL_COPY_READ_BUFFER, 0, chunk, GL_MAP_READ_BIT);
    if (wanted[s]) {
      std::memcpy(reinterpret_cast<char*>(got.data()) + offset_of[s], m,
                  std::min(chunk, bytes - offset_of[s]));
    }
    glUnmapBuffer(GL_COPY_READ_BUFFER);
  };
  int wrong_rounds = 0;
  for (int round = 1; round <= rounds; ++round) {
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = float(round * 1000 + int(i % 997));
    glBindTexture(GL_TEXTURE_2D, source);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGBA, GL_FLOAT, values.data());
    doubling.draw();
    int c = 0;
    for (int a = 0; a < 2; ++a) {
      glBindBuffer(GL_PIXEL_PACK_BUFFER, pack[a]);
      glFinish();  // makes the race far likelier: the glReadPixels starts a new batch
      glReadBuffer(attachments[a]);
      glReadPixels(0, 0, width, height, GL_RGBA, GL_FLOAT, nullptr);
      glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
      for (int done = 0; done < bytes; ++c, done += chunk) {
        const int s = c % 2;
        retire(s);
        glBindBuffer(GL_COPY_READ_BUFFER, pack[a]);
        glBindBuffer(GL_COPY_WRITE_BUFFER, slot[s]);
        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, done, 0,
                            std::min(chunk, bytes - done));
        fence[s] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        offset_of[s] = done;
        wanted[s] = a == 1;
        glFlush();
      }
    }
    retire(0);
    retire(1);
    bool wrong = false;
    for (std::size_t i = 0; i < values.size(); ++i) wrong |= got[i] != 2 * values[i];
    wrong_rounds += wrong;
  }
  std::printf("%d of %d rounds read a chunk older than its glReadPixels\n", wrong_rounds, rounds);
  return wrong_rounds == 0 ? 0 : 1;
}
