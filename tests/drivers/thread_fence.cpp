// Reproducer: a fence waited from another thread signals before the copy it follows has
// landed.
//
// A dispatch writes 800 KB; the context copies it out in 64 KiB chunks through a ring of 3
// slots of a persistently mapped, coherent buffer, each chunk followed by an EGL fence and a
// glFlush; a second thread with no current context waits for each fence (eglClientWaitSync,
// EGL_FOREVER) and then reads its slot. On Mesa 22.3's zink over lavapipe some chunks still
// hold the previous round's data (23 of 650 in one run; none with GALLIUM_THREAD=0, none on
// llvmpipe); a GL fence waited by a thread with a shared context current does the same.
// Exit status: 0 when every chunk was whole, 1 when one was not.
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "egl_setup.hpp"
#include "gl_helpers.hpp"
// After GLES3/gl31.h (egl_setup.hpp), which it extends.
#include <GLES2/gl2ext.h>

namespace {

constexpr unsigned words = 200000, chunk = 16384, slots = 3, rounds = 50;

struct Delivery {
  EGLSync fence;
  unsigned slot, first, count, round;
};

}  // namespace

int main() {
  const EglSetup egl;
  const GLuint program = compute_program(R"(#version 310 es
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer B { uint v[]; };
uniform uint round_;
void main() { v[gl_GlobalInvocationID.x] = round_ * 1000000u + gl_GlobalInvocationID.x; })");
  GLuint data = 0, ring = 0;
  glGenBuffers(1, &data);
  glGenBuffers(1, &ring);
  glBindBuffer(GL_COPY_WRITE_BUFFER, data);
  glBufferData(GL_COPY_WRITE_BUFFER, words * 4, nullptr, GL_DYNAMIC_COPY);
  auto buffer_storage =
      reinterpret_cast<PFNGLBUFFERSTORAGEEXTPROC>(eglGetProcAddress("glBufferStorageEXT"));
  const GLbitfield map = GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT_EXT | GL_MAP_COHERENT_BIT_EXT;
  glBindBuffer(GL_COPY_WRITE_BUFFER, ring);
  buffer_storage(GL_COPY_WRITE_BUFFER, chunk * 4 * slots, nullptr, map | GL_CLIENT_STORAGE_BIT_EXT);
  const auto* mapped = static_cast<const unsigned*>(
      glMapBufferRange(GL_COPY_WRITE_BUFFER, 0, chunk * 4 * slots, map));

  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Delivery> queue;
  bool busy[slots] = {}, stop = false;
  int stale = 0, total = 0;
  std::thread reader([&] {
    for (;;) {
      Delivery d;
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return stop || !queue.empty(); });
        if (queue.empty()) return;
        d = queue.front();
        queue.pop_front();
      }
      eglClientWaitSync(egl.display, d.fence, 0, EGL_FOREVER);
      for (unsigned i = 0; i < d.count; ++i) {
        if (mapped[d.slot * chunk + i] != d.round * 1000000u + d.first + i) {
          ++stale;
          break;
        }
      }
      eglDestroySync(egl.display, d.fence);
      std::lock_guard lock(mutex);
      busy[d.slot] = false;
      changed.notify_all();
    }
  });
  glUseProgram(program);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, data);
  unsigned next = 0;
  for (unsigned r = 1; r <= rounds; ++r) {
    glUniform1ui(glGetUniformLocation(program, "round_"), r);
    glDispatchCompute((words + 63) / 64, 1, 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    for (unsigned first = 0; first < words; first += chunk) {
      const unsigned count = std::min(chunk, words - first), slot = next++ % slots;
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return !busy[slot]; });
        busy[slot] = true;
      }
      glBindBuffer(GL_COPY_READ_BUFFER, data);
      glBindBuffer(GL_COPY_WRITE_BUFFER, ring);
      glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, first * 4, slot * chunk * 4,
                          count * 4);
      EGLSync fence = eglCreateSync(egl.display, EGL_SYNC_FENCE, nullptr);
      glFlush();
      ++total;
      std::lock_guard lock(mutex);
      queue.push_back({fence, slot, first, count, r});
      changed.notify_all();
    }
    // The next dispatch rewrites `data`: every chunk of this round is read first.
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] {
      return queue.empty() && std::none_of(busy, busy + slots, [](bool b) { return b; });
    });
  }
  {
    std::lock_guard lock(mutex);
    stop = true;
  }
  changed.notify_all();
  reader.join();
  std::printf("%d of %d chunks read after their fence still held older data\n", stale, total);
  return stale == 0 ? 0 : 1;
}
