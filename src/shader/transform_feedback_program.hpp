// Internal: linking a vertex shader so that transform feedback captures all its outputs,
// and reading back what is captured where.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "shader/program.hpp"

namespace gpgpu::detail {

// One captured output and where its values lie in the capture buffers.
struct CapturedOutput {
  StageVariable variable;
  int components = 1;             // per element (9 for a mat3)
  int buffer = 0;                 // the transform-feedback binding it is written to
  std::size_t offset_values = 0;  // within one element's record in that buffer
};

struct CapturePlan {
  std::vector<CapturedOutput> outputs;
  bool separate = true;           // GL_SEPARATE_ATTRIBS, else GL_INTERLEAVED_ATTRIBS
  std::size_t record_values = 0;  // interleaved: values per element across all outputs
};

// The transform-feedback program for a complete vertex shader, from the context's cache or
// linked now: a separable link of the vertex shader alone names its active outputs, then
// the program is linked with those outputs as its varyings and a fragment shader that does
// nothing. Throws UnsupportedError (no outputs, output arrays), LimitError (over the
// device's capture limits) or CompileError.
std::shared_ptr<Program> transform_feedback_program(ContextState& state, const ShaderStage& vertex,
                                                    const std::string& label);

// What a linked transform-feedback program captures (GL_TRANSFORM_FEEDBACK_VARYING), in
// capture order.
CapturePlan read_capture_plan(GLuint program);

}  // namespace gpgpu::detail
