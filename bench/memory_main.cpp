// bench_memory — `gpgpu bench memory` as a program of its own, with every size option:
//   bench_memory [which] [--out DIR] [--quick] [--repeats N] [--warmup N] [--device D]
//                [--transfer-max BYTES] [--floats N] [--transpose-n N] [--particles N]
#include <cstdlib>
#include <iostream>
#include <string>

#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"
#include "memory_runner.hpp"

int main(int argc, char** argv) try {
  gpgpu::bench::MemoryBenchOptions options;
  std::string device = "auto";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw gpgpu::ArgumentError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--out")
      options.out_dir = value();
    else if (arg == "--quick")
      options.quick = true;
    else if (arg == "--repeats")
      options.repeats = std::stoi(value());
    else if (arg == "--warmup")
      options.warmup = std::stoi(value());
    else if (arg == "--device")
      device = value();
    else if (arg == "--transfer-max")
      options.transfer_max_bytes = std::stoull(value());
    else if (arg == "--floats")
      options.bandwidth_floats = std::stoull(value());
    else if (arg == "--transpose-n")
      options.transpose_n = std::stoull(value());
    else if (arg == "--particles")
      options.particles = std::stoull(value());
    else if (arg == "--no-cuda")
      options.cuda = false;
    else if (!arg.empty() && arg[0] != '-')
      options.which = arg;
    else
      throw gpgpu::ArgumentError("unknown option " + arg);
  }
  gpgpu::Context context({.device = device});
  return gpgpu::bench::run_memory_bench(options, context);
} catch (const std::exception& e) {
  std::cerr << "bench_memory: " << e.what() << "\n";
  return 1;
}
