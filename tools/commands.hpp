// The subcommands of the `gpgpu` command-line tool. Each registers its options on the
// CLI11 app and returns the function that runs it.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace gpgpu::cli {

using Command = std::function<int()>;

Command add_info_command(CLI::App& app);
Command add_run_command(CLI::App& app);
Command add_bench_command(CLI::App& app);
Command add_trace_command(CLI::App& app);
Command add_reduce_command(CLI::App& app);
Command add_scan_command(CLI::App& app);
Command add_sort_command(CLI::App& app);
Command add_argsort_command(CLI::App& app);
Command add_histogram_command(CLI::App& app);
Command add_train_command(CLI::App& app);
Command add_predict_command(CLI::App& app);
Command add_earth_command(CLI::App& app);
Command add_export_web_command(CLI::App& app);
Command add_export_onnx_command(CLI::App& app);

}  // namespace gpgpu::cli
