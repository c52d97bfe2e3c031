// Internal: what the transform-feedback backend's stages share. Every array lives twice:
// a Buffer that transform feedback writes, and a Texture (a 1-D array) that later vertex
// shaders read at any index. A small compute kernel copies one into the other; without
// compute shaders (WebGL2, gpgpu.js's world) the copy is Texture::copy_from, a
// glTexSubImage2D from a pixel-unpack buffer. All arithmetic is in the vertex shaders.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glsl/element_kernel.hpp"
#include "glsl/element_stage.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/texture.hpp"
#include "gpgpu/transform_feedback_kernel.hpp"
#include "plan/staged_plan.hpp"

namespace gpgpu::nn::detail {

struct TfArray {
  Buffer buffer;
  Texture texture;
  TfArray() = default;
  TfArray(const Context& context, std::size_t count);
  bool valid() const { return buffer.valid(); }
};

class TfCopier {
 public:
  explicit TfCopier(const Context& context);
  // texture[offset + i] = source[i] for every element of source.
  void to_texture(const Buffer& source, Texture& texture, std::size_t offset = 0);
  void to_texture(TfArray& array) { to_texture(array.buffer, array.texture); }
  // target[offset + i] = int(source[i]) for i < count.
  void to_int_buffer(const Buffer& source, Buffer& target, std::size_t offset, std::size_t count);

 private:
  // With compute shaders; without them (WebGL2) Texture::copy_from and the transform-feedback
  // kernel to_int_tf_ into int_scratch_, copied into place with Buffer::copy_from.
  const Context* context_;
  std::optional<ComputeKernel> to_texture_, to_int_;
  std::optional<TransformFeedbackKernel> to_int_tf_;
  Buffer int_scratch_;
};

// A transform-feedback kernel with the shared GLSL (activations, hash, fetch, LOAD) in front.
TransformFeedbackKernel make_tf_kernel(const Context& context, const std::string& body,
                                       const Defines& defines, std::string label);

// The transform-feedback path of the shared element-wise stages (glsl/element_stage.hpp):
// element operands bind the Buffer, gathered ones the Texture; publishing copies a Buffer
// into its Texture.
class TfPath {
 public:
  using Array = TfArray;
  using Kernel = TransformFeedbackKernel;
  TfPath(const Context& context, TfCopier& copier) : context_(&context), copier_(&copier) {}
  Kernel kernel(const glsl::ElementKernel& k, const Defines& d, std::string label) const {
    return make_tf_kernel(*context_, glsl::transform_feedback_source(k), d, std::move(label));
  }
  Arg element(const TfArray& a) const { return a.buffer; }
  Arg gathered(const TfArray& a) const { return a.texture; }
  TfArray array(std::size_t n) const { return TfArray(*context_, n); }
  void run(Kernel& k, const Args& args, std::size_t) const { k.run(args); }
  void publish(TfArray& a) const { copier_->to_texture(a); }

 private:
  const Context* context_;
  TfCopier* copier_;
};

struct TfStageContext {
  const Context& context;
  std::size_t batch;
  Mode mode;
  Texture& params;
  std::vector<Buffer>& gradients;  // per parameter (ModelState::params order), trainable only
  const std::map<std::size_t, std::size_t>& parameter_at;  // flat offset -> parameter index
  TfCopier& copier;
  std::size_t parameter_index(std::size_t offset) const;
  TfPath path() const { return {context, copier}; }
};

using TfStageArrays = GpuStageArrays<TfArray>;

// A stage's kernels write y.buffer (forward) and dx.buffer and the gradients (backward);
// the plan then copies what they wrote into the textures later stages read.
std::unique_ptr<StageKernels> make_tf_runner(const TfStageContext& sc, const Stage& stage,
                                             TfStageArrays arrays);

}  // namespace gpgpu::nn::detail
