// gpgpu/transform_feedback_kernel.hpp — a vertex shader run once per element, its `out`
// variables captured by transform feedback (the method of gpgpu.js, with no rasterising).
//
//   gpgpu::TransformFeedbackKernel add(ctx, R"(
//     in float A;
//     in float B;
//     out float C;
//     out float D;
//     void main() { C = A + B; D = A * B; })");
//   add.run({{"A", a}, {"B", b}, {"C", c}, {"D", d}});   // c and d are written back
//
// Variables, found by introspection:
//   in   float, vec2-4, int, ivec2-4, uint, uvec2-4, mat2-4 and matCxR: per-element inputs,
//        from host arrays or Buffers (integers arrive exactly: glVertexAttribIPointer).
//        A matrix takes consecutive attribute locations, one per column, and its host data is
//        column-major per element unless wrapped in gpgpu::row_major(...).
//   out  every `out` is captured, several per pass; integer outputs must be declared
//        `flat out` (GLSL ES requires it). Outputs go to host arrays (written back) or to
//        Buffers (they stay on the GPU). Output arrays (out float C[4]) are not supported.
//   uniform  values of every type, and Textures for sampler2D/3D, isampler*, usampler*.
// Every `out` must be given an array; the element count is taken from them (a vec3 output
// of 12 floats is 4 elements), so a kernel driven by gl_VertexID alone needs no dummy
// input. Inputs must have the same count. Mismatches throw SizeMismatchError naming the
// arrays; nothing runs and no caller array changes.
//
// Helpers gpgpu adds to the shader:
//   int gpgpu_index()     this element's index (gl_VertexID)
//   int gpgpu_count       the number of elements
//   vec4/ivec4/uvec4 gpgpu_fetch(sampler2D/isampler2D/usampler2D t, int i)
//                         element i of a 1-D array stored by Texture::array/from_array:
//                         texelFetch(t, ivec2(i % W, i / W), 0), W = textureSize(t, 0).x
//
// How the capture works: the vertex shader is first linked alone as a separable program to
// read its active outputs (GL_PROGRAM_OUTPUT); the kernel's program is then linked with
// glTransformFeedbackVaryings naming them. The outputs are captured GL_SEPARATE_ATTRIBS,
// each straight into its own buffer (a Buffer output is written in place), when there are
// at most GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_ATTRIBS of them (4 or more) and none has more
// than GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_COMPONENTS components (4 or more: a mat3 does
// not fit); otherwise GL_INTERLEAVED_ATTRIBS into one temporary buffer that a small compute
// pass splits on the GPU afterwards, within GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS
// (64 or more) per element. A run draws GL_POINTS with GL_RASTERIZER_DISCARD; when results
// come back to the host it also checks that every element was captured
// (GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN). A run whose outputs are all Buffers never
// waits for the GPU. The kernel keeps its vertex array, transform-feedback object and
// query for all its runs; host arrays go through the Context's transfer engine.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpgpu/arg.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/defines.hpp"
#include "gpgpu/detail/gl_name.hpp"
#include "gpgpu/kernel_variable.hpp"
#include "gpgpu/pending_run.hpp"

namespace gpgpu {

namespace detail {
class Program;
struct CapturePlan;
struct ProgramInterface;
}  // namespace detail

// A GLSL vertex shader run once per element with its outputs captured by transform
// feedback: gpgpu.js's method (the manual at the top of this header). Move-only.
class TransformFeedbackKernel {
 public:
  // Compiles and links the vertex shader (or takes the program from the context's cache).
  // Throws CompileError with the driver log and the numbered source, UnsupportedError for
  // output arrays or a shader with no outputs, LimitError when the outputs exceed the
  // device's transform-feedback limits.
  TransformFeedbackKernel(const Context& context, std::string_view vertex_source,
                          const Defines& defines = {},
                          std::string label = "transform-feedback kernel");
  ~TransformFeedbackKernel();
  // @{
  // Moves the compiled kernel; running a moved-from kernel throws Error.
  TransformFeedbackKernel(TransformFeedbackKernel&&) noexcept;
  TransformFeedbackKernel& operator=(TransformFeedbackKernel&&) noexcept;
  // @}
  TransformFeedbackKernel(const TransformFeedbackKernel&) = delete;
  TransformFeedbackKernel& operator=(const TransformFeedbackKernel&) = delete;

  // Runs the shader once per element; the element count comes from the outputs.
  void run(const Args& args);
  // The same, asynchronously (pending_run.hpp): host outputs are written by the handle's wait().
  PendingRun run_async(const Args& args);

  // These throw Error on a moved-from kernel, as run() does.
  // The kernel's variables as the driver reports them (what Args bind to).
  std::vector<KernelVariable> variables() const;
  // The label given at construction (it names the kernel in errors and profiles).
  const std::string& label() const;
  // True when the outputs are captured GL_SEPARATE_ATTRIBS, false when interleaved.
  bool captures_separately() const;

  // GPU nanoseconds of the last run's draw, when timing is on and the device has timer
  // queries (GL_EXT_disjoint_timer_query); otherwise -1.
  void set_timing(bool enabled) { timing_ = enabled; }
  double last_gpu_ns() const { return last_gpu_ns_; }  // see set_timing

 private:
  // The compiled program; throws Error when this kernel was moved from.
  const detail::Program& program() const;

  std::shared_ptr<detail::ContextState> state_;
  std::shared_ptr<detail::Program> program_;
  std::string label_;
  // The program's uniforms and inputs, with the captured varyings as its outputs.
  std::shared_ptr<const detail::ProgramInterface> interface_;
  std::shared_ptr<const detail::CapturePlan> plan_;
  // Kept for every run (made on first use).
  detail::GlName<detail::GlKind::VertexArray> vertex_array_;
  detail::GlName<detail::GlKind::TransformFeedback> transform_feedback_;
  detail::GlName<detail::GlKind::Query> primitives_;
  detail::GlName<detail::GlKind::Framebuffer> no_pixels_;
  PendingRun start(const Args& args, bool async);
  void make_objects();
  bool timing_ = false;
  double last_gpu_ns_ = -1;
};

}  // namespace gpgpu
