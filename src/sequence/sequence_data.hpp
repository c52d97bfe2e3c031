// Internal: a Sequence's recorded dispatches and what replay derives from them once
// (compile_sequence): the barriers, the objects to check, and the shadows of GL state that
// let a replay skip calls that would change nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/dispatch_record.hpp"
#include "sequence/hazards.hpp"

namespace gpgpu::detail {

struct ContextState;

// A Buffer or Texture a replay checks first: still there, still the GL object recorded.
struct ObjectCheck {
  const Arg* arg;  // in the dispatch's record
  bool texture;
  GLuint gl_name;
  std::size_t dispatch;
  std::string what;  // "the Buffer for 'x'"
};

// The values a uniform of a program last received from this sequence.
struct UniformShadow {
  bool known = false;
  bool row_major = false;
  std::vector<std::uint32_t> words;
};

// A program the sequence uses, and whether the uniform values it left there are still there:
// every run and replay that sets a program's uniforms counts in Program::uniform_writes().
struct ProgramSlot {
  const Program* program = nullptr;
  std::uint64_t seen = ~std::uint64_t{0};  // uniform_writes() after this sequence's last replay
  std::vector<std::size_t> shadows;        // its uniforms' UniformShadows
};

// The GL state a replay tracks between its dispatches (reset at the start of each replay:
// anything may have changed it since). Kept here so that a replay allocates nothing.
struct BoundState {
  struct Binding {
    GLuint name = 0;
    GLsizeiptr bytes = -1;  // -1: unknown
  };
  struct Unit {
    GLuint name = 0;
    GLenum target = 0;  // 0: unknown
  };
  GLuint program = 0;
  std::vector<Binding> storage;
  std::vector<Unit> textures, images;
};

struct CompiledDispatch {
  std::size_t program_slot = 0;
  std::vector<std::size_t> shadow;  // per recorded uniform, its UniformShadow
};

struct SequenceData {
  std::shared_ptr<ContextState> state;
  std::string label;
  std::vector<DispatchRecord> dispatches;
  std::uint64_t generation = 0;  // clear() counts
  bool timing = false;
  double last_gpu_ns = -1;

  // Derived by compile_sequence when `compiled` is false.
  bool compiled = false;
  BarrierPlan barriers;
  std::vector<ObjectCheck> checks;
  std::vector<ProgramSlot> programs;
  std::vector<CompiledDispatch> compiled_dispatches;
  std::vector<UniformShadow> shadows;
  std::vector<GLuint> storage_bindings;  // binding points used (unbound after a replay)
  std::vector<GLuint> buffers_used;      // Buffers read or written (storage blocks, buffer views)
  GLuint binding_points = 0;             // one more than the highest
  GLuint texture_units = 0, image_units = 0;
  BoundState bound;  // replay's scratch
};

// Derives the barriers, checks and shadows from `d.dispatches`.
void compile_sequence(SequenceData& d);
// Throws ArgumentError for the first recorded object destroyed, released or replaced.
void check_objects(const SequenceData& d);
// What each dispatch reads and writes, for plan_barriers.
std::vector<std::vector<ResourceAccess>> accesses_of(const std::vector<DispatchRecord>& records);
// Issues the dispatches (compiled, objects checked).
void issue(SequenceData& d);

}  // namespace gpgpu::detail
