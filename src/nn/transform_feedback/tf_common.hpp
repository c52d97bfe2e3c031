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

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/texture.hpp"
#include "gpgpu/transform_feedback_kernel.hpp"
#include "model_state.hpp"

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

// A transform-feedback kernel with the shared GLSL (activations, hash, fetch) in front.
TransformFeedbackKernel make_tf_kernel(const Context& context, const char* body, Defines defines,
                                       std::string label);

struct TfStageContext {
  const Context& context;
  std::size_t batch;
  Mode mode;
  Texture& params;
  std::vector<Buffer>& gradients;  // per parameter (ModelState::params order), trainable only
  const std::map<std::size_t, std::size_t>& parameter_at;  // flat offset -> parameter index
  TfCopier& copier;
  std::size_t parameter_index(std::size_t offset) const;
};

struct TfStageArrays {
  TfArray* x = nullptr;
  TfArray* y = nullptr;
  TfArray* dy = nullptr;
  TfArray* dx = nullptr;
};

class TfRunner {
 public:
  virtual ~TfRunner() = default;
  virtual void forward(std::uint32_t seed) = 0;  // writes y.buffer
  virtual void backward() = 0;                   // writes dx.buffer and the gradients
};

std::unique_ptr<TfRunner> make_tf_runner(const TfStageContext& sc, const Stage& stage,
                                         TfStageArrays arrays);

}  // namespace gpgpu::nn::detail
