// Matrix multiplication plans for gpgpu.js: compiled once for a shape and method, run on
// host arrays (in the module's memory) or on Buffers.
#include <emscripten/emscripten.h>

#include <fmt/format.h>

#include <gpgpu/buffer.hpp>
#include <gpgpu/error.hpp>
#include <gpgpu/matmul.hpp>

#include "js_errors.hpp"
#include "js_gpgpu.hpp"

using gpgpu::web::guarded;
using gpgpu::web::guarded_call;
using gpgpu::web::JsGPGPU;

extern "C" {

// method: a MatmulMethod name ("transform_feedback_vec4", "fragment_packed", "auto", ...).
EMSCRIPTEN_KEEPALIVE gpgpu::MatmulPlan* gpgpu_matmul_new(JsGPGPU* g, int m, int k, int n,
                                                         const char* method) {
  return guarded<gpgpu::MatmulPlan*>(nullptr, [&] {
    const auto parsed = gpgpu::parse_matmul_method(method);
    if (!parsed) {
      std::string names = "auto";
      for (auto each : gpgpu::all_matmul_methods()) names += ", " + std::string(to_string(each));
      throw gpgpu::ArgumentError(
          fmt::format("matmul: unknown method '{}'; the methods are {}", method, names));
    }
    gpgpu::MatmulOptions options;
    options.method = *parsed;
    return new gpgpu::MatmulPlan(g->context, m, k, n, options);
  });
}

EMSCRIPTEN_KEEPALIVE void gpgpu_matmul_free(gpgpu::MatmulPlan* plan) {
  delete plan;
}

EMSCRIPTEN_KEEPALIVE const char* gpgpu_matmul_description(const gpgpu::MatmulPlan* plan) {
  return gpgpu::web::handed_out(plan->description());
}

// Host operands of exactly m*k, k*n and m*n floats.
EMSCRIPTEN_KEEPALIVE int gpgpu_matmul_run(gpgpu::MatmulPlan* plan, const float* a,
                                          std::size_t a_count, const float* b, std::size_t b_count,
                                          float* c, std::size_t c_count) {
  return guarded_call([&] {
    plan->run(std::span<const float>(a, a_count), std::span<const float>(b, b_count),
              std::span<float>(c, c_count));
  });
}

EMSCRIPTEN_KEEPALIVE int gpgpu_matmul_run_buffers(gpgpu::MatmulPlan* plan, const gpgpu::Buffer* a,
                                                  const gpgpu::Buffer* b, gpgpu::Buffer* c) {
  return guarded_call([&] { plan->run(*a, *b, *c); });
}

// Waits for the GPU (for timing in the page).
EMSCRIPTEN_KEEPALIVE int gpgpu_finish(JsGPGPU* g) {
  return guarded_call([&] { g->context.finish(); });
}

}  // extern "C"
