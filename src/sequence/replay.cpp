// Issuing a compiled sequence: per dispatch only the GL calls that change something, against
// shadows of the state the previous dispatches left (program, storage bindings, texture and
// image units: reset at each replay; uniform values: kept per program across replays while
// nothing else sets them).
#include <algorithm>

#include "gl/context_state.hpp"
#include "gl/gpu_timer.hpp"
#include "kernels/kernel_core.hpp"
#include "sequence/sequence_data.hpp"
#include "shader/program.hpp"
#include "transfer/transfer_engine.hpp"

namespace gpgpu::detail {

namespace {

// The GL calls a replay issues per dispatch: every argument was validated when it was
// recorded, so what could still fail is the driver itself. They are checked one by one on
// debug contexts (ContextOptions::debug) and otherwise together, once after the last
// (check_gl reads and clears every pending error flag): a glGetError per call is a sizeable
// part of a replayed dispatch.
template <class Call>
void issue_gl(bool check_each, Call&& call, const char* text) {
  call();
  if (check_each) check_gl(text);
}
#define REPLAY_GL(check_each, expr) issue_gl((check_each), [&] { expr; }, #expr)

using Bound = BoundState;

void bind_blocks(const DispatchRecord& r, Bound& bound, bool check_each) {
  for (const auto& b : r.blocks) {
    Bound::Binding& now = bound.storage[b.binding];
    if (now.name == b.gl_name && now.bytes == b.bytes) continue;
    REPLAY_GL(check_each,
              glBindBufferRange(GL_SHADER_STORAGE_BUFFER, b.binding, b.gl_name, 0, b.bytes));
    now = {b.gl_name, b.bytes};
  }
}

void bind_textures(ContextState& state, const DispatchRecord& r, Bound& bound) {
  for (const auto& t : r.textures) {
    switch (t.kind) {
      case RecordedTexture::Kind::Sampler: {
        Bound::Unit& now = bound.textures[t.unit];
        if (now.name == t.gl_name && now.target == t.target) break;
        bind_texture_unit(t.unit, t.target, t.gl_name);
        now = {t.gl_name, t.target};
        break;
      }
      case RecordedTexture::Kind::BufferTexels: {
        Bound::Unit& now = bound.textures[t.unit];
        if (now.name == t.gl_name && now.target == GL_TEXTURE_BUFFER) break;
        attach_buffer_view(state, t.unit, t.format, t.gl_name);
        now = {t.gl_name, GL_TEXTURE_BUFFER};
        break;
      }
      case RecordedTexture::Kind::Image: {
        // Bound read-write, as a run binds images (the shader's qualifiers still apply).
        Bound::Unit& now = bound.images[t.unit];
        if (now.name == t.gl_name && now.target == GL_READ_WRITE) break;
        GL(glBindImageTexture(t.unit, t.gl_name, 0, t.layered, 0, GL_READ_WRITE, t.format));
        now = {t.gl_name, GL_READ_WRITE};
        break;
      }
    }
  }
}

void set_uniforms(SequenceData& d, std::size_t i) {
  const DispatchRecord& r = d.dispatches[i];
  const CompiledDispatch& c = d.compiled_dispatches[i];
  for (std::size_t k = 0; k < r.uniforms.size(); ++k) {
    const RecordedUniform& u = r.uniforms[k];
    UniformShadow& s = d.shadows[c.shadow[k]];
    if (s.known && s.row_major == u.row_major && s.words == u.words) continue;
    if (u.variable->type.is_sampler) {
      GL(glUniform1i(u.variable->location, static_cast<GLint>(u.words[0])));  // its unit
    } else {
      write_uniform(*u.variable, u.count, u.row_major, u.words.data(), r.label);
    }
    s.known = true;
    s.row_major = u.row_major;
    s.words = u.words;
  }
}

// Uniform values this sequence left in a program are gone once anything else set some.
void forget_overwritten_uniforms(SequenceData& d) {
  for (auto& p : d.programs) {
    if (p.program->uniform_writes() == p.seen) continue;
    for (const std::size_t s : p.shadows) d.shadows[s].known = false;
  }
}

void issue_all(SequenceData& d, Bound& bound) {
  ContextState& state = *d.state;
  const bool each = state.debug;
  // An upload into any of them waits for this replay (TransferEngine::note_gpu_use), as
  // after a run: marked once per replay, not per dispatch.
  TransferEngine& engine = state.engine_while_current();
  for (const GLuint name : d.buffers_used) engine.note_gpu_use(name);
  for (std::size_t i = 0; i < d.dispatches.size(); ++i) {
    const DispatchRecord& r = d.dispatches[i];
    if (d.barriers.before[i] != 0) REPLAY_GL(each, glMemoryBarrier(d.barriers.before[i]));
    const GLuint program = r.program->id();
    if (bound.program != program) {
      REPLAY_GL(each, glUseProgram(program));
      bound.program = program;
    }
    bind_blocks(r, bound, each);
    bind_textures(state, r, bound);
    set_uniforms(d, i);
    REPLAY_GL(each, glDispatchCompute(r.groups[0], r.groups[1], r.groups[2]));
  }
  if (d.barriers.after_last != 0) REPLAY_GL(each, glMemoryBarrier(d.barriers.after_last));
  check_gl(
      "a gpgpu::Sequence replay (glMemoryBarrier, glUseProgram, glBindBufferRange, "
      "glDispatchCompute)");
}

// As after a run: no storage binding or buffer view keeps a Buffer's memory alive.
void unbind(SequenceData& d) {
  const bool each = d.state->debug;
  for (const GLuint b : d.storage_bindings) {
    REPLAY_GL(each, glBindBufferBase(GL_SHADER_STORAGE_BUFFER, b, 0));
  }
  detach_buffer_texels(*d.state);
  check_gl("a gpgpu::Sequence replay (glBindBufferBase)");
}

}  // namespace

void issue(SequenceData& d) {
  Bound& bound = d.bound;
  bound.program = 0;
  bound.storage.assign(d.binding_points, {});
  bound.textures.assign(d.texture_units, {});
  bound.images.assign(d.image_units, {});
  forget_overwritten_uniforms(d);
  try {
    GpuTimer timer(*d.state, d.timing);
    issue_all(d, bound);
    d.last_gpu_ns = timer.stop();
    unbind(d);
  } catch (...) {
    for (auto& s : d.shadows) s.known = false;
    throw;
  }
  for (auto& p : d.programs) {
    p.program->note_uniform_writes();
    p.seen = p.program->uniform_writes();
  }
}

}  // namespace gpgpu::detail
