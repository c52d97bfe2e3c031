// `gpgpu run KERNEL.comp A=a.npy --out C=c.npy [--size N] [--set alpha=1.5]`: runs any
// compute kernel over NumPy files, binding each file to the kernel variable it is named for.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/npy.hpp"
#include "kernel_arguments.hpp"

namespace gpgpu::cli {

namespace {

struct RunOptions {
  std::string kernel_path;
  std::vector<std::string> inputs;    // NAME=file.npy
  std::vector<std::string> outputs;   // NAME=file.npy
  std::vector<std::string> uniforms;  // NAME=v1,v2,...
  std::vector<std::string> defines;   // NAME=VALUE or NAME
  std::vector<std::size_t> size;      // items: N, or X,Y[,Z]
  std::vector<std::size_t> groups;    // work groups X[,Y[,Z]]
  std::string device = "auto";
  bool row_major = false;
  bool profile = false;
  int repeat = 1;
};

int run(const RunOptions& o) {
  Context ctx({.device = o.device});
  ComputeKernel kernel(ctx, read_text(o.kernel_path), parse_defines(o.defines), o.kernel_path);
  KernelArguments arguments(kernel.variables(), {.kernel_path = o.kernel_path,
                                                 .inputs = o.inputs,
                                                 .outputs = o.outputs,
                                                 .uniforms = o.uniforms,
                                                 .size = o.size,
                                                 .groups = o.groups,
                                                 .row_major = o.row_major});
  const Args& args = arguments.args();
  kernel.set_timing(o.profile);
  std::vector<double> gpu_ns, wall_ns;
  for (int r = 0; r < o.repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    if (!o.groups.empty()) {
      Size3 g{o.groups[0], o.groups.size() > 1 ? o.groups[1] : 1,
              o.groups.size() > 2 ? o.groups[2] : 1};
      kernel.run_groups(args, g);
    } else if (o.size.size() > 1) {
      kernel.run(args, Size3{o.size[0], o.size[1], o.size.size() > 2 ? o.size[2] : 1});
    } else if (o.size.size() == 1) {
      kernel.run(args, o.size[0]);
    } else {
      kernel.run(args);
    }
    wall_ns.push_back(
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
    gpu_ns.push_back(kernel.last_gpu_ns());
  }
  arguments.save_outputs();
  if (o.profile) {
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    std::cout << fmt::format("profile: {} run(s) on {}\n", o.repeat, ctx.info().renderer);
    if (gpu_ns.front() >= 0) {
      std::cout << fmt::format("  GPU time (GL_TIME_ELAPSED, dispatch only): median {:.3f} ms\n",
                               median(gpu_ns) / 1e6);
    } else {
      std::cout << "  GPU time: this device has no timer queries (GL_EXT_disjoint_timer_query); "
                   "only wall time is shown\n";
    }
    std::cout << fmt::format("  wall time (upload + dispatch + read-back): median {:.3f} ms\n",
                             median(wall_ns) / 1e6);
  }
  return 0;
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto* sub = app.add_subcommand("run", "Run a GLSL compute kernel over NumPy .npy files");
  auto o = std::make_shared<RunOptions>();
  sub->add_option("kernel", o->kernel_path, "GLSL compute shader file (declarations and main)")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option(
      "inputs", o->inputs,
      "NAME=file.npy: bind a .npy file (float32/int32/uint32, C order) to a kernel variable");
  sub->add_option("-o,--out", o->outputs,
                  "NAME=file.npy: write this storage array to a .npy file after the run");
  sub->add_option("-s,--set", o->uniforms,
                  "NAME=v[,v...]: set a uniform (scalar, vector, matrix, array)");
  sub->add_option("-D,--define", o->defines,
                  "NAME[=VALUE]: prepend #define NAME VALUE to the kernel");
  sub->add_option("--size", o->size,
                  "work items: N, or X,Y[,Z] (default: the input arrays' length)")
      ->delimiter(',');
  sub->add_option("--groups", o->groups, "dispatch exactly X[,Y[,Z]] work groups")->delimiter(',');
  sub->add_option("-d,--device", o->device, "auto, an index, or a word of the renderer");
  sub->add_flag("--row-major", o->row_major,
                "matrices in the inputs and --set values are row-major");
  sub->add_flag("--profile", o->profile, "time the kernel with GPU timer queries and wall clock");
  sub->add_option("--repeat", o->repeat, "run the kernel this many times (for --profile)")
      ->check(CLI::PositiveNumber);
  return [o]() { return run(*o); };
}

}  // namespace gpgpu::cli
