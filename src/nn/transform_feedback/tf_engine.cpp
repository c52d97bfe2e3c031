#include "gpgpu/error.hpp"
#include "model_state.hpp"
namespace gpgpu::nn::detail {
std::unique_ptr<Engine> make_transform_feedback_engine(const ModelState&) {
  throw UnsupportedError("nn: the transform-feedback backend is not built yet");
}
}  // namespace gpgpu::nn::detail
