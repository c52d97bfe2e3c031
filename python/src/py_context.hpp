// The Context behind gpgpu.Context, tied to the Python thread that made it.
//
// An EGL context is current on one thread at a time, and a thread that ends while one is
// current to it keeps it forever (eglMakeCurrent elsewhere then fails with EGL_BAD_ACCESS).
// Python moves objects between threads freely (a thread pool, a finaliser, a callback), so
// a gpgpu call from a foreign thread could leave the Context unusable for its own thread.
// Hence:
//   * every call through the bindings checks that it comes from the owner thread (use()),
//     and raises ContextError otherwise — gpgpu.default_context() gives each thread its own;
//   * GL objects whose Python wrapper dies on a foreign thread are not deleted there (that
//     would make the context current on that thread) but handed to dispose(), which frees
//     them on the owner thread's next call, or with the Context.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>

#include "gpgpu/context.hpp"

namespace gpgpu::python {

class PyContext {
 public:
  explicit PyContext(const ContextOptions& options);
  ~PyContext();
  PyContext(const PyContext&) = delete;
  PyContext& operator=(const PyContext&) = delete;

  // The Context, for a call from the owner thread; throws ContextError on any other thread.
  // Frees what other threads disposed of first.
  Context& use();
  // For reading what needs no GL call (info, released), from any thread.
  const Context& peek() const { return context_; }
  bool on_owner_thread() const { return std::this_thread::get_id() == owner_; }

  // Destroys `object` now on the owner thread, or keeps it until the owner thread's next use().
  template <class T>
  void dispose(T&& object) {
    if (on_owner_thread()) {
      T doomed(std::move(object));
      return;
    }
    auto holder = std::make_shared<T>(std::move(object));
    std::lock_guard lock(mutex_);
    graveyard_.push_back(std::move(holder));
    has_graves_ = true;
  }

 private:
  void collect();

  Context context_;
  std::thread::id owner_;
  std::mutex mutex_;
  std::vector<std::shared_ptr<void>> graveyard_;
  std::atomic<bool> has_graves_{false};
};

// What the Python face of an object made on a Context holds: the PyContext (kept alive by the
// object) and the C++ object, empty until made (a kernel compiles after its holder exists).
// The object goes back to the Context when the Python object dies, which frees it on the
// Context's own thread. Python classes derive from it and add their own state.
template <class T>
struct ContextOwned {
  ContextOwned() = default;
  explicit ContextOwned(std::shared_ptr<PyContext> c) : context(std::move(c)) {}
  ContextOwned(const ContextOwned&) = delete;
  ContextOwned& operator=(const ContextOwned&) = delete;
  ~ContextOwned() {
    if (context && owned) context->dispose(std::move(*owned));
  }
  // The object, for a call from the Context's thread (ContextError on any other).
  T& use() {
    context->use();
    return *owned;
  }

  std::shared_ptr<PyContext> context;
  std::optional<T> owned;
};

// `ctx` (a gpgpu.Context), or when it is None the Context a call without ctx= uses:
// gpgpu.default_context() of this thread (needs the GIL).
std::shared_ptr<PyContext> context_or_default(const pybind11::object& ctx);

}  // namespace gpgpu::python
