// Internal: making many programs at once (an autotuner's candidates, a network's kernels).
//
// One by one, every compile waits for the driver. Where the driver has
// GL_KHR_parallel_shader_compile, compile_together starts every compile and link first and
// collects the programs as they finish (GL_COMPLETION_STATUS_KHR): a driver that compiles on
// threads of its own then takes about as long as a batch's slowest programs instead of their
// sum. Two that advertise it were measured to compile one program at a time all the same:
// Mesa's llvmpipe (inside the call) and the H100's NVIDIA driver (also across contexts on
// several threads: docs/startup.md). Programs in the disk cache are restored instead;
// without the extension the batch is compiled one program after another.
#pragma once

#include <string>
#include <vector>

#include "shader/program.hpp"

namespace gpgpu::detail {

struct ProgramRequest {
  std::string key;  // the context-cache key, as cached_program takes it
  std::vector<ShaderStage> stages;
  LinkOptions options;
  std::string label;
};

// Puts the program of every request into the context's cache (ContextState::programs),
// unless it is there already, so that cached_program finds it. A request that fails to
// compile is left out: cached_program compiles it again and throws its CompileError then.
// Returns how many of the requests the cache holds afterwards (a batch larger than the
// cache's limit pushes its own first programs out).
std::size_t compile_together(ContextState& state, const std::vector<ProgramRequest>& requests);

}  // namespace gpgpu::detail
