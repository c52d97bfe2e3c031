// `--backend` and `--threads` of `gpgpu train` and `gpgpu predict`: which gpgpu::nn backend
// runs the model, and how it is described in their output.
#pragma once

#include <cstddef>
#include <string>

#include <CLI/CLI.hpp>

#include "gpgpu/nn.hpp"

namespace gpgpu::cli {

struct NnBackendChoice {
  std::string backend = "auto";
  std::size_t threads = 0;  // cpu backend; 0: every core, capped by the environment
};

void add_backend_options(CLI::App& command, NnBackendChoice& choice);
// "cpu (2 threads)", "compute", "transform-feedback": what runs `model`.
std::string backend_description(const nn::Sequential& model);
// On the cpu backend, nn::cpu_blas_hint() on stderr when there is one.
void print_backend_hint(const nn::Sequential& model);

}  // namespace gpgpu::cli
