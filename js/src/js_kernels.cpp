// Fragment kernels (GPGPUtility's way: one fragment per output element) and standalone
// transform-feedback kernels for gpgpu.js.
#include <emscripten/emscripten.h>

#include <gpgpu/compute_kernel.hpp>
#include <gpgpu/fragment_kernel.hpp>
#include <gpgpu/transform_feedback_kernel.hpp>

#include "js_args.hpp"
#include "js_describe.hpp"
#include "js_errors.hpp"
#include "js_gpgpu.hpp"

using gpgpu::web::guarded;
using gpgpu::web::guarded_call;
using gpgpu::web::JsArgs;
using gpgpu::web::JsGPGPU;

extern "C" {

EMSCRIPTEN_KEEPALIVE gpgpu::FragmentKernel* gpgpu_fragment_new(JsGPGPU* g, const char* source,
                                                               const char* label) {
  return guarded<gpgpu::FragmentKernel*>(
      nullptr, [&] { return new gpgpu::FragmentKernel(g->context, source, {}, label); });
}

EMSCRIPTEN_KEEPALIVE void gpgpu_fragment_free(gpgpu::FragmentKernel* kernel) {
  delete kernel;
}

EMSCRIPTEN_KEEPALIVE const char* gpgpu_fragment_variables(const gpgpu::FragmentKernel* kernel) {
  return guarded<const char*>(nullptr, [&] {
    return gpgpu::web::handed_out(gpgpu::web::variables_json(kernel->variables()));
  });
}

// rows = cols = 0: the grid comes from the outputs (their Textures' shape or their length).
EMSCRIPTEN_KEEPALIVE int gpgpu_fragment_run(gpgpu::FragmentKernel* kernel, const JsArgs* args,
                                            std::size_t rows, std::size_t cols) {
  return guarded_call([&] {
    if (rows == 0 && cols == 0) {
      kernel->run(args->args);
    } else {
      kernel->run(args->args, rows, cols);
    }
  });
}

EMSCRIPTEN_KEEPALIVE gpgpu::TransformFeedbackKernel* gpgpu_tf_new(JsGPGPU* g, const char* source,
                                                                  const char* label) {
  return guarded<gpgpu::TransformFeedbackKernel*>(
      nullptr, [&] { return new gpgpu::TransformFeedbackKernel(g->context, source, {}, label); });
}

EMSCRIPTEN_KEEPALIVE void gpgpu_tf_free(gpgpu::TransformFeedbackKernel* kernel) {
  delete kernel;
}

EMSCRIPTEN_KEEPALIVE const char* gpgpu_tf_variables(const gpgpu::TransformFeedbackKernel* kernel) {
  return guarded<const char*>(nullptr, [&] {
    return gpgpu::web::handed_out(gpgpu::web::variables_json(kernel->variables()));
  });
}

EMSCRIPTEN_KEEPALIVE int gpgpu_tf_run(gpgpu::TransformFeedbackKernel* kernel, const JsArgs* args) {
  return guarded_call([&] { kernel->run(args->args); });
}

// ComputeKernel, as in C++: in WebGL2 it throws UnsupportedError (no compute shaders),
// which is what gpgpu.js's computeKernel() passes on.
EMSCRIPTEN_KEEPALIVE gpgpu::ComputeKernel* gpgpu_compute_kernel_new(JsGPGPU* g,
                                                                    const char* source) {
  return guarded<gpgpu::ComputeKernel*>(
      nullptr, [&] { return new gpgpu::ComputeKernel(g->context, source, {}, "compute kernel"); });
}

EMSCRIPTEN_KEEPALIVE void gpgpu_compute_kernel_free(gpgpu::ComputeKernel* kernel) {
  delete kernel;
}

}  // extern "C"
