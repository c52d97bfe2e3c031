// Internal: linked programs kept on disk between processes (the "programs" store of the
// cache directory, gpgpu/cache.hpp).
//
// Compiling GLSL costs a driver milliseconds to a few hundred milliseconds per program, and a
// process of gpgpu links dozens (a network's layers, an autotuner's candidates). The linked
// binary (glGetProgramBinary) is restored by glProgramBinary in a later process instead.
// An entry is keyed by everything that decides the binary: the driver (renderer, vendor and
// GL version string, which carries the driver's version), a format version of gpgpu's own,
// every stage's complete source and the link options. A driver may still refuse a binary
// (it was updated in place, a different GPU answers to the same name): then the entry is
// removed with one warning per process and the program is compiled from source. Loaded
// programs go through the same introspection and checks as compiled ones.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpgpu/cache.hpp"
#include "gpgpu/context.hpp"
#include "shader/program_link.hpp"

namespace gpgpu::detail {

class ProgramBinaryCache {
 public:
  // Bump when the key or the payload changes meaning.
  static constexpr std::uint32_t format_version = 1;

  // Inactive when `wanted` is false (ContextOptions::cache_programs), the cache is off
  // (GPGPU_CACHE=off) or the driver offers no binary format.
  ProgramBinaryCache(const DeviceInfo& info, bool wanted);

  bool active() const noexcept { return store_.has_value(); }
  // A linked program restored from the cache (the caller's to delete), or 0: absent,
  // inactive, or refused by the driver (then removed, with one warning per process).
  GLuint load(const std::vector<ShaderStage>& stages, const LinkOptions& options) const;
  // Keeps the binary of `program` (linked from `stages` with `options`, with the retrievable
  // hint) for later processes. Best effort: a driver that gives no binary, or a cache that
  // cannot be written (one warning), leaves the program as it is.
  void store(GLuint program, const std::vector<ShaderStage>& stages,
             const LinkOptions& options) const;

  // The key of a program: the driver, the format version, the link options and every stage.
  std::string key(const std::vector<ShaderStage>& stages, const LinkOptions& options) const;

 private:
  std::string driver_;  // renderer, vendor, GL version
  std::optional<cache::Store> store_;
};

}  // namespace gpgpu::detail
