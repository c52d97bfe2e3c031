// The grid of a `gpgpu earth` command (see earth_grid_source.hpp).
#include "earth_grid_source.hpp"

#include <iostream>

#include "gpgpu/earth/grid_cache.hpp"

namespace gpgpu::cli::earth {

namespace ge = gpgpu::earth;

void add_grid_source_options(CLI::App& app, GridSource& source) {
  app.add_option("--grid-device", source.device,
                 "Where the grid's spring dynamics runs when it is built: auto (timed on both), "
                 "gpu, cpu")
      ->check(CLI::IsMember({"auto", "gpu", "cpu"}));
  app.add_option("--grid-file", source.file,
                 "Read the grid from this file (`gpgpu earth grid --out FILE`) instead of the "
                 "cache");
  app.add_flag("--verbose", source.verbose, "Print the grid build's stages and levels");
}

ge::GridBuild obtain_grid(const GridSource& source, ge::GridOptions options, const Context* gpu) {
  options.device = source.device == "gpu"   ? ge::GridDevice::Gpu
                   : source.device == "cpu" ? ge::GridDevice::Cpu
                                            : ge::GridDevice::Auto;
  ge::GridBuild b = source.file.empty() ? ge::cached_grid(options, gpu)
                                        : ge::load_grid_file(source.file, options);
  if (source.verbose) std::cout << b.report.to_string();
  return b;
}

}  // namespace gpgpu::cli::earth
