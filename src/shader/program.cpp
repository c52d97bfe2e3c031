#include "shader/program.hpp"

#include <fmt/format.h>

#include <chrono>

#include "gpgpu/error.hpp"
#include "shader/glsl_access.hpp"
#include "shader/program_binary_cache.hpp"
#include "shader/program_limits.hpp"

namespace gpgpu::detail {

namespace {

// gpgpu binds uniforms one by one (glUniform*), never uniform buffers: a kernel whose
// uniform block stayed unbound would read zeros and run without a word.
void reject_uniform_blocks(const ProgramInterface& interface, const std::string& label) {
  if (interface.uniform_blocks.empty()) return;
  throw UnsupportedError(fmt::format(
      "{}: uniform block{} {} cannot be bound by gpgpu (it sets uniforms one by one, not "
      "uniform buffers), so the kernel would read zeros; declare the members as plain "
      "uniforms (`uniform float scale;`) or put them in a storage block and bind a Buffer",
      label, interface.uniform_blocks.size() > 1 ? "s" : "",
      fmt::join(interface.uniform_blocks, ", ")));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool is_compute(const std::vector<ShaderStage>& stages) {
  return stages.size() == 1 && stages[0].type == GL_COMPUTE_SHADER;
}

}  // namespace

Program::Program(GLuint linked, const std::vector<ShaderStage>& stages, std::string label,
                 std::weak_ptr<ContextState> owner)
    : id_(linked), owner_(std::move(owner)), label_(std::move(label)) {
  try {
    // OpenGL ES 3.0 (WebGL2) has no program-interface queries: the sources tell instead.
    const auto context = owner_.lock();
    interface_ = context && !context->platform.gles31 ? introspect_es30(id_, stages)
                                                      : introspect(id_, is_compute(stages));
    reject_uniform_blocks(interface_, label_);
    if (context) check_program_fits(interface_, stages, context->info, label_);
    // Which blocks and images a compute shader only reads or only writes (for the hazards
    // of recorded sequences); the driver does not report memory qualifiers.
    for (const auto& stage : stages) {
      if (stage.type == GL_COMPUTE_SHADER) read_declared_access(stage.source, interface_);
    }
  } catch (...) {
    glDeleteProgram(id_);
    glGetError();
    id_ = 0;
    throw;
  }
}

Program::~Program() {
  if (id_ == 0) return;
  // A kernel can outlive its context's cache (Context::release, clear_program_cache) and be
  // destroyed while another context is current on this thread. Delete only in the owner:
  // when it is gone or released, its names went with it; when it is current on another
  // thread, leaking the program is the only safe choice.
  const auto owner = owner_.lock();
  if (!owner || !owner->try_make_current()) return;
  glDeleteProgram(id_);
  glGetError();  // a destructor must not throw; a failed delete leaves nothing to undo
}

std::shared_ptr<Program> restored_program(ContextState& state,
                                          const std::vector<ShaderStage>& stages,
                                          const LinkOptions& options, const std::string& label) {
  const auto start = std::chrono::steady_clock::now();
  const GLuint restored = state.binaries->load(stages, options);
  if (restored == 0) return nullptr;
  auto program = std::make_shared<Program>(restored, stages, label, state.weak_from_this());
  state.program_counts.restored += 1;
  state.program_counts.restore_seconds += seconds_since(start);
  return program;
}

std::shared_ptr<Program> linked_program(ContextState& state, PendingLink& link,
                                        const std::vector<ShaderStage>& stages,
                                        const LinkOptions& options, const std::string& label) {
  const GLuint linked = finish_link(link, stages, label);
  auto program = std::make_shared<Program>(linked, stages, label, state.weak_from_this());
  state.program_counts.compiled += 1;
  state.binaries->store(program->id(), stages, options);
  return program;
}

std::shared_ptr<Program> build_program(ContextState& state, const std::vector<ShaderStage>& stages,
                                       const LinkOptions& options, const std::string& label) {
  if (auto program = restored_program(state, stages, options, label)) return program;
  const auto start = std::chrono::steady_clock::now();
  PendingLink link = start_link(stages, options, state.binaries->active());
  auto program = linked_program(state, link, stages, options, label);
  state.program_counts.compile_seconds += seconds_since(start);
  return program;
}

std::shared_ptr<Program> cached_program(ContextState& state, const std::string& key,
                                        const std::vector<ShaderStage>& stages,
                                        const LinkOptions& options, const std::string& label) {
  state.ensure_current();
  if (auto cached = state.programs.find(key)) return cached;
  auto program = build_program(state, stages, options, label);
  state.programs.insert(key, program);
  return program;
}

}  // namespace gpgpu::detail
