// gpgpu::nn inference for gpgpu.js: a model directory (model.json and one .npy per
// parameter, written into the module's file system by gpgpu.js) on the transform-feedback
// backend, the one WebGL2 can run.
#include <emscripten/emscripten.h>

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gpgpu/error.hpp>
#include <gpgpu/nn.hpp>

#include "js_errors.hpp"
#include "js_gpgpu.hpp"
#include "nn_pixels.hpp"

using gpgpu::web::guarded;
using gpgpu::web::guarded_call;
using gpgpu::web::JsGPGPU;

extern "C" {

EMSCRIPTEN_KEEPALIVE gpgpu::nn::Sequential* gpgpu_nn_load(JsGPGPU* g, const char* directory) {
  return guarded<gpgpu::nn::Sequential*>(nullptr, [&] {
    auto model =
        std::make_unique<gpgpu::nn::Sequential>(gpgpu::nn::load_model(g->context, directory));
    model->set_backend(gpgpu::nn::Backend::TransformFeedback);
    return model.release();
  });
}

EMSCRIPTEN_KEEPALIVE void gpgpu_nn_free(gpgpu::nn::Sequential* model) {
  delete model;
}

// {"input": [C, H, W], "outputs": 10, "classes": [...], "parameters": N, "summary": "..."}
EMSCRIPTEN_KEEPALIVE const char* gpgpu_nn_describe(const gpgpu::nn::Sequential* model) {
  return guarded<const char*>(nullptr, [&] {
    const nlohmann::json j = {{"input", model->input_shape().dims()},
                              {"outputs", model->output_shape().size()},
                              {"classes", model->class_names()},
                              {"parameters", model->parameter_count()},
                              {"summary", model->summary()}};
    return gpgpu::web::handed_out(j.dump());
  });
}

// The outputs (logits) of `count` images given as bytes 0..255 (count x C x H x W), in
// batches of at most `batch`, into `logits` (count x outputs floats).
EMSCRIPTEN_KEEPALIVE int gpgpu_nn_forward(gpgpu::nn::Sequential* model, const std::uint8_t* pixels,
                                          std::size_t count, std::size_t batch, float* logits) {
  return guarded_call([&] {
    if (batch == 0) throw gpgpu::ArgumentError("nn forward: the batch size must be positive");
    const std::size_t per_image = model->input_shape().size();
    const std::size_t outputs = model->output_shape().size();
    for (std::size_t first = 0; first < count; first += batch) {
      const std::size_t n = std::min(batch, count - first);
      const auto x = gpgpu::web::normalized_pixels(
          std::span<const std::uint8_t>(pixels + first * per_image, n * per_image),
          model->normalization());
      const auto input =
          gpgpu::nn::Tensor::from(model->context(), model->input_shape().with_batch(n), x);
      const auto y = model->forward(input).to_vector();
      std::copy(y.begin(), y.end(), logits + first * outputs);
    }
  });
}

}  // extern "C"
