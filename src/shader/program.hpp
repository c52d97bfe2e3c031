// Internal: a compiled and linked GL program, its interface, and the RAII that frees it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gl/context_state.hpp"
#include "shader/program_interface.hpp"

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

class Program {
 public:
  // `owner` is the context the program is made in (current now). The destructor deletes the
  // GL program only in that context: program names are per context, so deleting while
  // another context is current would delete that context's program of the same number.
  Program(const std::vector<ShaderStage>& stages, const LinkOptions& options, std::string label,
          std::weak_ptr<ContextState> owner);
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  GLuint id() const { return id_; }
  const ProgramInterface& interface() const { return interface_; }
  // The label of the kernel that compiled it, for its own compile and link messages only:
  // kernels sharing a cached program keep their own labels.
  const std::string& label() const { return label_; }
  // Forget the GL name without deleting it (its context is being destroyed elsewhere).
  void abandon() noexcept { id_ = 0; }

 private:
  GLuint id_ = 0;
  std::weak_ptr<ContextState> owner_;
  ProgramInterface interface_;
  std::string label_;
};

// introspect() for OpenGL ES 3.0 (WebGL2), which lacks program-interface queries: the
// stages' sources supply the last stage's outputs (program_interface_es30.cpp).
ProgramInterface introspect_es30(GLuint program, const std::vector<ShaderStage>& stages);
// A stage's `out` variables as its source declares them; a fragment stage's with their
// locations in `program` (linked), any other stage's without (location -1, no GL call).
std::vector<StageVariable> declared_stage_outputs(GLuint program, const ShaderStage& stage);

// The program for `key` from the context's cache, compiled and linked on first use. The
// label names the kernel in compile errors; each kernel keeps its own label for the rest.
std::shared_ptr<Program> cached_program(ContextState& state, const std::string& key,
                                        const std::vector<ShaderStage>& stages,
                                        const LinkOptions& options, const std::string& label);

}  // namespace gpgpu::detail
