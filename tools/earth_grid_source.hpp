// Where a `gpgpu earth` command gets its grid: --grid-file, else the disk cache (built and
// stored on a miss) with the spring dynamics on --grid-device; --verbose prints how.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "gpgpu/earth/grid.hpp"

namespace gpgpu {
class Context;
}

namespace gpgpu::cli::earth {

struct GridSource {
  std::string device = "auto";  // --grid-device auto|gpu|cpu
  std::string file;             // --grid-file FILE
  bool verbose = false;         // --verbose: the build's stages and levels
};

// Registers --grid-device, --grid-file and --verbose on `app`.
void add_grid_source_options(CLI::App& app, GridSource& source);

// The grid `options` describe, from the source (the file is checked against the options:
// another level, kind or version is refused). `gpu`: the Context for the spring dynamics,
// or null. Prints the build report when verbose.
gpgpu::earth::GridBuild obtain_grid(const GridSource& source, gpgpu::earth::GridOptions options,
                                    const Context* gpu);

}  // namespace gpgpu::cli::earth
