// Internal: compiling and linking a program from source in two steps, so that several can be
// in the driver's hands at once.
//
// start_link hands every stage to the driver and asks for the link without reading any
// status back. Where the driver has GL_KHR_parallel_shader_compile it compiles in background
// threads from there on, until a status is read; finish_link reads the statuses (waiting for
// the driver if it must) and turns a failure into the CompileError a user sees: the driver's
// log beside the user's numbered source.
#pragma once

#include <string>
#include <vector>

#include "gl/gl.hpp"

namespace gpgpu::detail {

struct ShaderStage {
  GLenum type;              // GL_COMPUTE_SHADER, GL_VERTEX_SHADER, GL_FRAGMENT_SHADER
  std::string source;       // complete source, as given to the driver
  std::string user_source;  // what the user wrote, for numbered error listings
};

struct LinkOptions {
  bool separable = false;
  std::vector<std::string> transform_feedback_varyings;
  GLenum transform_feedback_mode = GL_INTERLEAVED_ATTRIBS;
};

// A program being compiled and linked. Owns its GL program and shaders until finish_link
// hands the program over; deletes what it still owns when destroyed.
class PendingLink {
 public:
  PendingLink() = default;
  ~PendingLink();
  PendingLink(PendingLink&& other) noexcept;
  PendingLink& operator=(PendingLink&& other) noexcept;
  PendingLink(const PendingLink&) = delete;
  PendingLink& operator=(const PendingLink&) = delete;

 private:
  friend PendingLink start_link(const std::vector<ShaderStage>&, const LinkOptions&, bool);
  friend bool link_finished(const PendingLink&);
  friend GLuint finish_link(PendingLink&, const std::vector<ShaderStage>&, const std::string&);
  void release() noexcept;

  GLuint program_ = 0;
  std::vector<GLuint> shaders_;
};

// Compiles the stages and links them (with `options`); `retrievable` asks the driver to keep
// the binary for glGetProgramBinary. Throws GLError only for a failing GL call.
PendingLink start_link(const std::vector<ShaderStage>& stages, const LinkOptions& options,
                       bool retrievable);
// True once the driver has finished (GL_COMPLETION_STATUS_KHR). Only for contexts with
// GL_KHR_parallel_shader_compile (elsewhere compiling happens inside start_link).
bool link_finished(const PendingLink& pending);
// The linked program, now the caller's to delete. Throws CompileError naming `label` with the
// annotated log of the first stage that failed to compile, or of the link.
GLuint finish_link(PendingLink& pending, const std::vector<ShaderStage>& stages,
                   const std::string& label);

}  // namespace gpgpu::detail
