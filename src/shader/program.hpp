// Internal: a compiled and linked GL program, its interface, and the RAII that frees it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gl/context_state.hpp"
#include "shader/program_interface.hpp"
#include "shader/program_link.hpp"

namespace gpgpu::detail {

class Program {
 public:
  // Takes over `linked`, a program linked (or restored from a binary) in `owner`, the
  // context current now, and reads its interface; deletes it and throws UnsupportedError
  // for uniform blocks. The destructor deletes the GL program only in that context:
  // program names are per context, so deleting while another context is current would
  // delete that context's program of the same number.
  Program(GLuint linked, const std::vector<ShaderStage>& stages, std::string label,
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
  // Counts the calls that set this program's uniforms (a run, a replay), so that a recorded
  // sequence knows whether the values it left in the program are still there.
  std::uint64_t uniform_writes() const noexcept { return uniform_writes_; }
  void note_uniform_writes() const noexcept { ++uniform_writes_; }

 private:
  GLuint id_ = 0;
  mutable std::uint64_t uniform_writes_ = 0;
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

// The program for `stages` restored from the disk cache (program_binary_cache.hpp), or null.
std::shared_ptr<Program> restored_program(ContextState& state,
                                          const std::vector<ShaderStage>& stages,
                                          const LinkOptions& options, const std::string& label);
// The program of a link started for `stages` (finish_link), stored in the disk cache.
std::shared_ptr<Program> linked_program(ContextState& state, PendingLink& link,
                                        const std::vector<ShaderStage>& stages,
                                        const LinkOptions& options, const std::string& label);

// The program for `stages`: restored from the disk cache, else compiled and linked (and
// then stored there). Not kept in the context's cache. Counted in state.program_counts.
std::shared_ptr<Program> build_program(ContextState& state, const std::vector<ShaderStage>& stages,
                                       const LinkOptions& options, const std::string& label);

// The program for `key` from the context's cache, else made by build_program on first use.
// The label names the kernel in compile errors; each kernel keeps its own label for the rest.
std::shared_ptr<Program> cached_program(ContextState& state, const std::string& key,
                                        const std::vector<ShaderStage>& stages,
                                        const LinkOptions& options, const std::string& label);

}  // namespace gpgpu::detail
