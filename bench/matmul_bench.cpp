// matmul_bench — the matrix-multiplication speed test as a program of its own (the CLI's
// `gpgpu bench matmul` runs the same code). See matmul_runner.hpp for what is measured.
//
//   matmul_bench                                   # default sizes and methods for the device
//   matmul_bench --sizes 256,512,1024 --methods compute_register_blocked,cpu_openblas
//   matmul_bench --out results/ --repeats 9
#include <CLI/CLI.hpp>

#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"
#include "matmul_runner.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "gpgpu matmul speed test: every method, float64-checked, GFLOPS tables, JSON, CSV, charts"};
  gpgpu::bench::MatmulBenchOptions options;
  std::string device = "auto";
  bool list = false, no_charts = false;
  app.add_option("--sizes", options.sizes,
                 "square sizes n, comma-separated (default: fits the device)")
      ->delimiter(',');
  app.add_option("--methods", options.methods,
                 "methods, comma-separated (default: all available; --list)")
      ->delimiter(',');
  app.add_option("--out", options.out_dir,
                 "directory for matmul.json, matmul.csv and the PNG charts")
      ->capture_default_str();
  app.add_option("--repeats", options.repeats, "timed runs per point, at most")
      ->capture_default_str();
  app.add_option("--warmup", options.warmup, "untimed runs per point first")->capture_default_str();
  app.add_option("--max-point-seconds", options.max_seconds_per_point,
                 "stop repeating a point after this long")
      ->capture_default_str();
  app.add_option("--max-run-seconds", options.max_seconds_per_run,
                 "skip sizes where one run is predicted to take longer")
      ->capture_default_str();
  app.add_option("--full-check-max-n", options.full_check_max_n,
                 "check every entry up to this n, sample above")
      ->capture_default_str();
  app.add_option("--seed", options.seed, "input data seed (0: random)");
  app.add_option("--device", device, "GL device: auto, an index, or a word of the renderer");
  app.add_flag("--no-charts", no_charts, "do not draw PNG charts");
  app.add_flag("--list", list, "list the method names and exit");
  CLI11_PARSE(app, argc, argv);

  if (list) {
    for (const auto& name : gpgpu::bench::list_matmul_bench_methods()) std::cout << name << "\n";
    return 0;
  }
  options.charts = !no_charts;
  std::ostringstream command;
  for (int i = 0; i < argc; ++i) command << (i ? " " : "") << argv[i];
  options.command_line = command.str();
  try {
    gpgpu::Context context({.device = device});
    return gpgpu::bench::run_matmul_bench(options, context);
  } catch (const gpgpu::Error& e) {
    std::cerr << "matmul_bench: " << e.what() << "\n";
    return 2;
  }
}
