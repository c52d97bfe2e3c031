// Internal: what a Sequential holds — its layers, the flat parameter layout, the host copy
// of the parameters while no backend holds them, and the engine of its backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpgpu/context.hpp"
#include "gpgpu/nn/data.hpp"
#include "gpgpu/nn/layers.hpp"
#include "gpgpu/nn/model.hpp"
#include "plan/engine.hpp"

namespace gpgpu::nn::detail {

struct ModelState {
  const Context* context = nullptr;
  Shape input;
  std::vector<Layer> layers;
  std::vector<Shape> shapes;  // per sample, after each layer
  std::vector<ParameterInfo> params;
  std::size_t total = 0, trainable = 0;
  Normalization normalization;
  std::vector<std::string> class_names;
  bool initialized = false;
  std::vector<float> host_values;  // the truth while there is no engine
  Backend backend = Backend::Auto;
  BackendOptions options;
  std::unique_ptr<Engine> engine;
  std::uint64_t engines_made = 0;   // tells users of an engine that it was replaced
  std::uint32_t forward_count = 0;  // seeds dropout in Sequential::forward
  Plan* last_train_plan = nullptr;

  // The engine of the current backend, made (and given the parameters) on first use.
  Engine& ensure_engine();
  // Rebuilds params, shapes and the flat layout after the layers changed.
  void lay_out_parameters();
};

// Parameter initialisation (init.cpp): values for every parameter from a seed.
std::vector<float> initial_values(const ModelState& model, std::uint64_t seed);

}  // namespace gpgpu::nn::detail
