// gpgpu/gpgpu_js.hpp — the gpgpu.js API in C++, so code from its samples reads almost the
// same. Kernels are transform-feedback vertex shaders (see transform_feedback_kernel.hpp).
//
//   gpgpu.js                                      C++
//   var gpgpu = CreateGPGPU();                    gpgpu::js::GPGPU gpgpu(ctx);
//   var C = new Float32Array(6);                  std::vector<float> C(6);
//   gpgpu.compute({                               gpgpu.compute({
//     id: "AddVec",                                 .id = "AddVec",
//     vertexShader: vertex_shader,                  .vertex_shader = vertex_shader,
//     args: { "A": A, "B": B, "C": C }              .args = {{"A", A}, {"B", B}, {"C", C}}});
//   });
//   gpgpu.clear("AddVec");                        gpgpu.clear("AddVec");
//   gpgpu.makeTextureInfo("float", [2, 8], A)     gpgpu.make_texture_info("float", {2, 8}, A)
//
// Differences from gpgpu.js, all in the user's favour: integer inputs and outputs work
// (declare integer outputs `flat out`); the element count is taken from the outputs, so
// the seeds' `zero` input (an array of zeros kept only to set the count) is optional;
// every mistake is an exception naming the variable rather than a silent wrong result.
//
// Row-major textures, column-major matrices. Texture data is row-major, as in C:
// make_texture_info("float", {2, 8}, A) makes row r hold A[8 r .. 8 r + 7], read in GLSL
// with texelFetch(tex, ivec2(col, row), 0). GLSL matrices are column-major: the seed's
// UniMulMat passes B = {1, 2, ..., 9} as a uniform mat3, whose first COLUMN is (1, 2, 3),
// so B * (1, 2, 3) = (30, 36, 42), not the (14, 32, 50) a row-major reading would give.
// Wrap row-major matrix data in gpgpu::row_major(...) to have gpgpu transpose it.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpgpu/arg.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/texture.hpp"
#include "gpgpu/transform_feedback_kernel.hpp"

namespace gpgpu::js {

// The parameter object of gpgpu.compute().
struct ComputeParam {
  std::string id;             // names the program; compiled on first use, kept until clear
  std::string vertex_shader;  // GLSL: `in` per-element inputs, `out` results, uniforms
  Args args;                  // every in, out and uniform by name
};

// gpgpu.js's API over TransformFeedbackKernel: compute() runs a vertex shader over named
// arrays, programs kept by id (the manual at the top of this header).
class GPGPU {
 public:
  // The Context must outlive this object.
  explicit GPGPU(const Context& context);

  // Runs param.vertex_shader once per element over param.args. The program is compiled the
  // first time param.id is seen and reused afterwards; an id already used for different
  // source throws ArgumentError (clear it first).
  void compute(const ComputeParam& param);

  // The kernel of `id`, compiled from `vertex_shader` the first time the id is seen (what
  // compute() runs); its variables() tell what to pass. Throws like compute().
  const TransformFeedbackKernel& kernel(const std::string& id, const std::string& vertex_shader);

  // Forgets the kernel of `id` (gpgpu.js frees its program here). The compiled program may
  // stay in the Context's cache until Context::clear_program_cache(). Returns false when
  // no kernel has that id.
  bool clear(const std::string& id);

  // @{
  // A texture to bind to a sampler argument: type "float", "vec2", "vec3", "vec4" (for
  // sampler2D/3D), "int" (isampler*), "uint" (usampler*) or "ivec4"/"uvec4"; shape
  // {rows, cols} or {depth, rows, cols}; data row-major, shape's product x components
  // values of the matching element type (float, int32_t, uint32_t). It is uploaded now and
  // lives as long as the returned Texture (a temporary lives through the compute call).
  template <class T>
  Texture make_texture_info(std::string_view type, const std::vector<std::size_t>& shape,
                            std::span<const T> data) const {
    return Texture::from(*context_, texel_type_from_name(type), shape, data);
  }
  template <class T>
  Texture make_texture_info(std::string_view type, const std::vector<std::size_t>& shape,
                            const std::vector<T>& data) const {
    return make_texture_info(type, shape, std::span<const T>(data));
  }
  // @}

  std::size_t kernel_count() const { return kernels_.size(); }  // programs kept (not cleared)

 private:
  struct Entry {
    std::string source;
    TransformFeedbackKernel kernel;
  };
  Entry& entry(const std::string& id, const std::string& vertex_shader);
  const Context* context_;
  std::map<std::string, Entry> kernels_;
};

}  // namespace gpgpu::js
