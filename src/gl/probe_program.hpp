// Internal: the small compute programs with which a Context measures how its driver behaves
// (gl/loop_limit.hpp, gl/lockstep_probe.hpp, gl/uniform_probe.hpp). They run while the
// Context is being made, before any ContextState exists, so they use raw GL names deleted in
// the current context, and they report failure (a driver that cannot compile them) as an
// empty result rather than throwing.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "gl/gl.hpp"

namespace gpgpu::detail {

// A linked compute program (OpenGL ES 3.1 GLSL, one storage block at binding 0); id() is 0
// when the source does not compile or link.
class ProbeProgram {
 public:
  explicit ProbeProgram(const char* source);
  ~ProbeProgram();
  ProbeProgram(const ProbeProgram&) = delete;
  ProbeProgram& operator=(const ProbeProgram&) = delete;

  GLuint id() const noexcept { return program_; }

 private:
  GLuint program_ = 0;
};

using ProbeUniforms = std::initializer_list<std::pair<const char*, std::uint32_t>>;

// `groups` work groups of `program` with the uint uniforms given; storage block 0 is a buffer
// of `words` uint32, each `fill` (a poison by default). Returns what the program left there,
// or an empty vector when it could not run. Waits for the device.
std::vector<std::uint32_t> run_probe(const ProbeProgram& program, ProbeUniforms uniforms,
                                     std::size_t words, std::uint32_t groups = 1,
                                     std::uint32_t fill = 0xFFFFFFFFu);

}  // namespace gpgpu::detail
