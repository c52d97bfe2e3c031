// What a replay derives once from the recorded dispatches (sequence_data.hpp).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/texture.hpp"
#include "sequence/sequence_data.hpp"
#include "shader/program.hpp"

namespace gpgpu::detail {

namespace {

bool reads(MemoryAccess a) {
  return a != MemoryAccess::WriteOnly;
}
bool writes(MemoryAccess a) {
  return a != MemoryAccess::ReadOnly;
}

std::vector<ResourceAccess> accesses_of(const DispatchRecord& r) {
  std::vector<ResourceAccess> list;
  for (const auto& b : r.blocks) {
    list.push_back({false, b.gl_name, AccessPath::StorageBlock, reads(b.access), writes(b.access)});
  }
  for (const auto& t : r.textures) {
    const bool image = t.kind == RecordedTexture::Kind::Image;
    list.push_back({t.kind != RecordedTexture::Kind::BufferTexels, t.gl_name,
                    image ? AccessPath::Image : AccessPath::TextureFetch, reads(t.access),
                    image && writes(t.access)});
  }
  return list;
}

// One check per recorded object (the first dispatch that uses it names it).
void add_checks(SequenceData& d) {
  d.checks.clear();
  std::map<std::pair<bool, GLuint>, bool> seen;
  for (std::size_t i = 0; i < d.dispatches.size(); ++i) {
    const auto& r = d.dispatches[i];
    for (const auto& b : r.blocks) {
      if (seen.emplace(std::pair{false, b.gl_name}, true).second) {
        d.checks.push_back(
            {&b.buffer, false, b.gl_name, i, fmt::format("the Buffer for '{}'", b.name)});
      }
    }
    for (const auto& t : r.textures) {
      const bool texture = t.kind != RecordedTexture::Kind::BufferTexels;
      if (seen.emplace(std::pair{texture, t.gl_name}, true).second) {
        d.checks.push_back(
            {&t.object, texture, t.gl_name, i,
             fmt::format("the {} for uniform '{}'", texture ? "Texture" : "Buffer", t.name)});
      }
    }
  }
}

// A program slot per distinct program, a shadow per (program, uniform variable).
void add_shadows(SequenceData& d) {
  d.programs.clear();
  d.shadows.clear();
  d.compiled_dispatches.assign(d.dispatches.size(), {});
  std::map<const Program*, std::size_t> slot_of;
  std::map<std::pair<std::size_t, const UniformVariable*>, std::size_t> shadow_of;
  for (std::size_t i = 0; i < d.dispatches.size(); ++i) {
    const auto& r = d.dispatches[i];
    auto [it, added] = slot_of.emplace(r.program.get(), d.programs.size());
    if (added) {
      d.programs.emplace_back();
      d.programs.back().program = r.program.get();
    }
    CompiledDispatch& c = d.compiled_dispatches[i];
    c.program_slot = it->second;
    for (const auto& u : r.uniforms) {
      auto [s, new_shadow] =
          shadow_of.emplace(std::pair{c.program_slot, u.variable}, d.shadows.size());
      if (new_shadow) {
        d.shadows.emplace_back();
        d.programs[c.program_slot].shadows.push_back(s->second);
      }
      c.shadow.push_back(s->second);
    }
  }
}

void add_once(std::vector<GLuint>& list, GLuint value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

void add_units(SequenceData& d) {
  d.storage_bindings.clear();
  d.buffers_used.clear();
  d.binding_points = d.texture_units = d.image_units = 0;
  for (const auto& r : d.dispatches) {
    for (const auto& b : r.blocks) {
      d.binding_points = std::max(d.binding_points, b.binding + 1);
      add_once(d.storage_bindings, b.binding);
      add_once(d.buffers_used, b.gl_name);
    }
    for (const auto& t : r.textures) {
      GLuint& units = t.kind == RecordedTexture::Kind::Image ? d.image_units : d.texture_units;
      units = std::max(units, t.unit + 1);
      if (t.kind == RecordedTexture::Kind::BufferTexels) add_once(d.buffers_used, t.gl_name);
    }
  }
}

}  // namespace

std::vector<std::vector<ResourceAccess>> accesses_of(const std::vector<DispatchRecord>& records) {
  std::vector<std::vector<ResourceAccess>> all;
  for (const auto& r : records) all.push_back(accesses_of(r));
  return all;
}

void compile_sequence(SequenceData& d) {
  d.barriers = plan_barriers(accesses_of(d.dispatches));
  add_checks(d);
  add_shadows(d);
  add_units(d);
  d.compiled = true;
}

void check_objects(const SequenceData& d) {
  for (const auto& c : d.checks) {
    const GLuint now = c.texture ? (c.arg->texture() ? c.arg->texture()->gl_name() : 0)
                                 : (c.arg->buffer() ? c.arg->buffer()->gl_name() : 0);
    if (now == c.gl_name) continue;
    const auto& r = d.dispatches[c.dispatch];
    throw ArgumentError(fmt::format(
        "sequence '{}': {} in dispatch {} ({}) was destroyed, released or replaced after it "
        "was recorded; record the sequence again",
        d.label, c.what, c.dispatch, r.label));
  }
}

}  // namespace gpgpu::detail
