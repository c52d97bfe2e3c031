// The subcommands of the `gpgpu` command-line tool. Each registers its options on the
// CLI11 app and returns the function that runs it.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace gpgpu::cli {

using Command = std::function<int()>;

// Options every subcommand that makes a context shares.
struct DeviceOption {
  std::string device = "auto";
};

Command add_info_command(CLI::App& app);
Command add_run_command(CLI::App& app);
Command add_bench_command(CLI::App& app);
Command add_trace_command(CLI::App& app);
Command add_earth_command(CLI::App& app);

}  // namespace gpgpu::cli
