// gpgpu/detail/gl_name.hpp — the one owner of a GL object name (not part of the manual).
//
// Every GL object gpgpu makes (buffers, textures, framebuffers, vertex arrays,
// transform-feedback objects, queries) is held by a GlName<Kind>: move-only, and deleted
// in the context that made it. That context is made current on the deleting thread when it
// can be; when it cannot (the Context was released, or it is current on another thread),
// the name is abandoned, and destroying the context frees it with everything else.
// Public only because Buffer, Texture and HostBuffer hold one by value; it includes no GL.
#pragma once

#include <memory>

namespace gpgpu::detail {

struct ContextState;

enum class GlKind : unsigned char {
  Buffer,
  Texture,
  Framebuffer,
  VertexArray,
  TransformFeedback,
  Query,
};

// Deletes `name` in `state`'s context (see above). Never throws.
void delete_gl_name(GlKind kind, ContextState* state, unsigned name) noexcept;

template <GlKind Kind>
class GlName {
 public:
  GlName() = default;
  // Takes ownership of `name`, made in `state`'s context.
  GlName(std::shared_ptr<ContextState> state, unsigned name) noexcept
      : state_(std::move(state)), name_(name) {}
  ~GlName() { reset(); }
  GlName(GlName&& other) noexcept : state_(std::move(other.state_)), name_(other.name_) {
    other.name_ = 0;
  }
  GlName& operator=(GlName&& other) noexcept {
    if (this != &other) {
      reset();
      state_ = std::move(other.state_);
      name_ = other.name_;
      other.name_ = 0;
    }
    return *this;
  }
  GlName(const GlName&) = delete;
  GlName& operator=(const GlName&) = delete;

  unsigned id() const noexcept { return name_; }
  explicit operator bool() const noexcept { return name_ != 0; }
  const std::shared_ptr<ContextState>& owner() const noexcept { return state_; }

  // Deletes the object now (see above) and forgets the context.
  void reset() noexcept {
    if (name_ != 0) delete_gl_name(Kind, state_.get(), name_);
    name_ = 0;
    state_.reset();
  }
  // Gives up ownership without deleting; the caller deletes the name.
  unsigned release() noexcept {
    const unsigned name = name_;
    name_ = 0;
    state_.reset();
    return name;
  }

 private:
  std::shared_ptr<ContextState> state_;
  unsigned name_ = 0;
};

}  // namespace gpgpu::detail
