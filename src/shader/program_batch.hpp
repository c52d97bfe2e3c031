// Internal: making many programs at once (an autotuner's candidates, a network's kernels).
//
// One by one, every compile waits for the driver. Where the driver compiles on threads of
// its own (GL_KHR_parallel_shader_compile: NVIDIA's driver, for one), compile_together
// starts every compile and link first and collects the programs as they finish
// (GL_COMPLETION_STATUS_KHR), so a batch takes about as long as its slowest programs
// instead of their sum. Programs in the disk cache are restored instead; without the
// extension (Mesa's llvmpipe advertises it but compiles inside the call) the batch is
// compiled one program after another, as cached_program would.
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
