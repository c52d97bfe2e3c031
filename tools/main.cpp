// gpgpu — the command-line tool: device information, running compute kernels over NumPy
// files, and the benchmarks.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/limits.hpp"
#include "mpi_launch.hpp"

int main(int argc, char** argv) {
  const auto main_start = std::chrono::steady_clock::now();
  gpgpu::cli::hand_over_to_mpi(argc, argv);
  CLI::App app{
      "gpgpu: GPU computing with GLSL on any OpenGL ES 3.1+ device (or the CPU through Mesa "
      "llvmpipe)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "gpgpu " GPGPU_VERSION);  // the project's version
  // A device-limit profile for every command: the Contexts they make read GPGPU_LIMITS.
  app.add_option_function<std::string>(
         "--limits",
         [](const std::string& name) {
           try {
             if (name != "device") gpgpu::limit_profile(name);
           } catch (const gpgpu::Error& e) {
             throw CLI::ValidationError("--limits", e.what());
           }
           ::setenv("GPGPU_LIMITS", name.c_str(), 1);
         },
         "Run as if on a smaller GPU: a device-limit profile (gpgpu info --profiles) that "
         "clamps the limits every kernel is planned with; default: $GPGPU_LIMITS")
      ->type_name("NAME");
  std::vector<std::pair<CLI::App*, gpgpu::cli::Command>> commands;
  auto add = [&](auto adder) {
    const std::size_t before = app.get_subcommands({}).size();
    auto command = adder(app);
    commands.emplace_back(app.get_subcommands({})[before], std::move(command));
  };
  add(gpgpu::cli::add_info_command);
  add(gpgpu::cli::add_run_command);
  add(gpgpu::cli::add_bench_command);
  add(gpgpu::cli::add_trace_command);
  add(gpgpu::cli::add_reduce_command);
  add(gpgpu::cli::add_scan_command);
  add(gpgpu::cli::add_sort_command);
  add(gpgpu::cli::add_argsort_command);
  add(gpgpu::cli::add_histogram_command);
  add(gpgpu::cli::add_train_command);
  add(gpgpu::cli::add_predict_command);
  add(gpgpu::cli::add_earth_command);
  add(gpgpu::cli::add_export_web_command);
  add(gpgpu::cli::add_export_onnx_command);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    for (auto& [sub, command] : commands) {
      if (!sub->parsed()) continue;
      const int status = command();
      // GPGPU_CLI_TIMING=1: when main got control and when the command had cleaned up (its
      // objects, the Context included, destroyed), for finding a process's start-up and
      // shutdown cost beside the command's own "time:" line.
      if (const char* timing = std::getenv("GPGPU_CLI_TIMING");
          timing && *timing && *timing != '0') {
        std::cerr << fmt::format(
            "gpgpu: main {:.3f} s (command and its clean-up)\n",
            std::chrono::duration<double>(std::chrono::steady_clock::now() - main_start).count());
      }
      return status;
    }
  } catch (const gpgpu::Error& e) {
    std::cerr << "gpgpu: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "gpgpu: unexpected error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
