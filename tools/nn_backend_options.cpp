// `--backend` and `--threads` (nn_backend_options.hpp).
#include "nn_backend_options.hpp"

#include <iostream>

#include <fmt/format.h>

namespace gpgpu::cli {

void add_backend_options(CLI::App& command, NnBackendChoice& choice) {
  command
      .add_option("--backend", choice.backend,
                  "cpu, compute, transform-feedback (tf), or auto: cpu on llvmpipe, else compute")
      ->capture_default_str();
  command.add_option("--threads", choice.threads,
                     "cpu backend: threads (default: every core, capped by $GPGPU_THREADS or "
                     "$OMP_NUM_THREADS)");
}

std::string backend_description(const nn::Sequential& model) {
  const nn::Backend b = model.active_backend();
  if (b != nn::Backend::Cpu) return std::string(nn::to_string(b));
  return fmt::format("cpu ({} threads)", nn::cpu_threads(model.backend_options()));
}

void print_backend_hint(const nn::Sequential& model) {
  if (model.active_backend() != nn::Backend::Cpu) return;
  if (const auto hint = nn::cpu_blas_hint(); !hint.empty()) std::cerr << hint << "\n";
}

}  // namespace gpgpu::cli
