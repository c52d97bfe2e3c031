// gpgpu/fragment_kernel.hpp — a fragment shader run once per output element, rendering
// into float or integer textures (the method of GPGPUtility: one fragment per texel).
//
//   gpgpu::FragmentKernel square(ctx, R"(
//     uniform sampler2D m;
//     out float r;
//     void main() {
//       ivec2 ij = gpgpu_coord();            // x = column j, y = row i of this element
//       float sum = 0.0;
//       for (int k = 0; k < textureSize(m, 0).x; ++k)
//         sum += texelFetch(m, ivec2(k, ij.y), 0).r * texelFetch(m, ivec2(ij.x, k), 0).r;
//       r = sum;
//     })");
//   auto m = gpgpu::Texture::from(ctx, gpgpu::TexelType::Float, {128, 128}, host);
//   std::vector<float> r(128 * 128);
//   square.run({{"m", m}, {"r", r}}, 128, 128);         // r: row-major 128 x 128
//
// You write declarations and main(); gpgpu adds the geometry (one triangle covering the
// viewport, so each output texel gets exactly one fragment), `#version`, precisions and:
//   ivec2 gpgpu_coord()   this element's (column, row) in the output grid
//   int gpgpu_index()     row * gpgpu_width + column: the element's index in row-major order
//   int gpgpu_width       columns of the output grid
//   int gpgpu_count       elements computed (rows x cols, or n for a 1-D output)
//   vec4/ivec4/uvec4 gpgpu_fetch(sampler2D/isampler2D/usampler2D t, int i)
//                         element i of a 1-D array texture (Texture::array), rows of
//                         W = textureSize(t, 0).x: texelFetch(t, ivec2(i % W, i / W), 0)
//
// Outputs: each `out` is a render target (float R32F, vec2 RG32F, vec4 RGBA32F, int R32I,
// uint R32UI, ivec4 RGBA32I, uvec4 RGBA32UI; float targets need GL_EXT_color_buffer_float).
// Several outputs are written at once through multiple render targets: declare each with
// `layout(location = N) out ...` (a single output may omit it). vec3 outputs cannot be
// rendered in OpenGL ES (RGB32F is not colour-renderable): declare a vec4.
// Each output takes
//   a Texture   2-D, of the output's texel type: rendered in place and left on the GPU, so
//               the next kernel can sample it (ping-pong); it must not also be an input;
//   a host array written back row-major, rows x cols x components values.
// Inputs are uniforms and Textures bound to samplers.
//
// The output grid (the viewport):
//   run(args, rows, cols)  a rows x cols grid; Texture outputs must have that shape;
//   run(args)              the shape of the Texture outputs, else a 1-D grid of n elements,
//                          n taken from the host outputs, laid out as ceil(n / W) rows of
//                          W = min(n, max_width()) texels (the last row partly: fragments
//                          past n are never run). Read element i with gpgpu_index().
// More elements than one texture holds throws LimitError; nothing is ever truncated.
// The kernel keeps its vertex array, framebuffer and the render targets of host outputs for
// later runs of the same shape; host outputs come back through the Context's transfer engine.
#pragma once

#include <cstddef>
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
#include "gpgpu/texel_type.hpp"

namespace gpgpu {

namespace detail {
class Program;
}

namespace detail {
// Where float render targets are missing (OpenGL ES 3.1 without GL_EXT_color_buffer_float),
// a float or vec4 output's bits go to an integer twin at another location, which is rendered
// and read back instead (fragment_kernel.cpp).
struct FragmentBitsTwin {
  std::string output;  // the user's output
  int location = 0;    // the twin's
  TexelType type = TexelType::Uint;
};
}  // namespace detail

// A GLSL fragment shader run once per output element, rendering into float or int
// textures or host arrays (the manual at the top of this header). Move-only.
class FragmentKernel {
 public:
  // Compiles and links the kernel (or takes it from the context's cache). Throws
  // CompileError with the driver log and the numbered source, and UnsupportedError for
  // outputs that cannot be rendered (types, arrays, float targets without
  // GL_EXT_color_buffer_float) or locations beyond GL_MAX_DRAW_BUFFERS.
  FragmentKernel(const Context& context, std::string_view fragment_source,
                 const Defines& defines = {}, std::string label = "fragment kernel");
  ~FragmentKernel();
  // @{
  // Moves the compiled kernel; running a moved-from kernel throws Error.
  FragmentKernel(FragmentKernel&&) noexcept;
  FragmentKernel& operator=(FragmentKernel&&) noexcept;
  // @}
  FragmentKernel(const FragmentKernel&) = delete;
  FragmentKernel& operator=(const FragmentKernel&) = delete;

  // One fragment per element of the outputs (see above for how the grid is found).
  void run(const Args& args);
  // One fragment per element of a rows x cols grid.
  void run(const Args& args, std::size_t rows, std::size_t cols);
  // @{
  // The same, asynchronously (pending_run.hpp): host outputs are written by the handle's wait().
  PendingRun run_async(const Args& args);
  PendingRun run_async(const Args& args, std::size_t rows, std::size_t cols);
  // @}

  // The widest row of a 1-D grid; 0 (the default) means the device's limit
  // (GL_MAX_TEXTURE_SIZE and GL_MAX_VIEWPORT_DIMS). Smaller widths exercise the wrapping.
  void set_max_width(std::size_t width) { max_width_ = width; }
  std::size_t max_width() const { return max_width_; }  // see set_max_width

  // These throw Error on a moved-from kernel, as run() does.
  // The kernel's variables as the driver reports them (what Args bind to).
  std::vector<KernelVariable> variables() const;
  // The label given at construction (it names the kernel in errors and profiles).
  const std::string& label() const;

  // GPU nanoseconds of the last run's draws, when timing is on and the device has timer
  // queries (GL_EXT_disjoint_timer_query); otherwise -1.
  void set_timing(bool enabled) { timing_ = enabled; }
  double last_gpu_ns() const { return last_gpu_ns_; }  // see set_timing

 private:
  struct Grid {
    std::size_t rows = 0, cols = 0, count = 0;
    bool explicit_shape = false;
  };
  // A render target kept for host outputs, reused while the grid keeps its shape.
  struct HostTarget {
    TexelType type = TexelType::Float;
    std::size_t rows = 0, cols = 0;
    detail::GlName<detail::GlKind::Texture> texture;
  };
  // validate -> plan -> upload -> launch -> commit (src/kernels/kernel_core.hpp).
  PendingRun start(const Args& args, Grid grid, bool async);
  unsigned host_target(std::size_t output, TexelType type, std::size_t rows, std::size_t cols);
  unsigned placeholder_target(std::size_t location, std::size_t rows, std::size_t cols);

  // The compiled program; throws Error when this kernel was moved from.
  const detail::Program& program() const;

  std::shared_ptr<detail::ContextState> state_;
  std::shared_ptr<detail::Program> program_;
  std::string label_;
  detail::GlName<detail::GlKind::VertexArray> vertex_array_;
  detail::GlName<detail::GlKind::Framebuffer> framebuffer_;
  std::vector<HostTarget> host_targets_;         // by output
  std::vector<HostTarget> placeholders_;         // by location: RGBA8, where no output renders
  std::vector<detail::FragmentBitsTwin> twins_;  // empty where float targets render
  std::size_t max_width_ = 0;
  bool timing_ = false;
  double last_gpu_ns_ = -1;
};

}  // namespace gpgpu
