// `gpgpu run KERNEL.comp A=a.npy --out C=c.npy [--size N] [--set alpha=1.5]`: runs any
// compute kernel over NumPy files, binding each file to the kernel variable it is named for.
//
// Everything that can be checked is checked before the kernel runs: the options (one of
// --size and --groups, 1 to 3 numbers each, --repeat at least 1), every output path (a
// temporary file is made beside each, see output_files.hpp), the inputs and --set values
// against the kernel's declarations. Outputs are written whole and moved into place
// together at the end: a failure leaves every output file as it was.
#include <algorithm>
#include <chrono>
#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/npy.hpp"
#include "kernel_arguments.hpp"
#include "output_files.hpp"

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
  bool unchecked_size = false;
  int repeat = 1;
  double timeout_seconds = 0;
};

void check_options(const RunOptions& o) {
  if (!o.size.empty() && !o.groups.empty()) {
    throw ArgumentError(
        "give either --size (work items) or --groups (work groups), not both: they are two "
        "ways to say how much work to run");
  }
  for (const auto& [option, values] : {std::pair{"--size", &o.size}, {"--groups", &o.groups}}) {
    if (values->size() > 3) {
      throw ArgumentError(fmt::format("{} takes 1 to 3 numbers (X[,Y[,Z]]), but {} were given",
                                      option, values->size()));
    }
    if (std::find(values->begin(), values->end(), std::size_t{0}) != values->end()) {
      throw ArgumentError(fmt::format("{} must not contain 0: that is no work at all", option));
    }
  }
  if (o.repeat < 1) {
    throw ArgumentError(
        fmt::format("--repeat must be at least 1 (the number of runs), not {}", o.repeat));
  }
  if (!(o.timeout_seconds >= 0)) {
    throw ArgumentError(fmt::format("--timeout must be 0 (none) or a number of seconds, not {}",
                                    o.timeout_seconds));
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void print_profile(const RunOptions& o, const DeviceInfo& info, const std::vector<double>& gpu_ns,
                   const std::vector<double>& wall_ns) {
  std::cout << fmt::format("profile: {} run(s) on {}\n", o.repeat, info.renderer);
  if (info.is_software) {
    std::cout << "  GPU time: not measured: this device runs shaders on the CPU, and its timer "
                 "queries do not see shader work\n";
  } else if (gpu_ns.front() >= 0) {
    std::cout << fmt::format("  GPU time (GL_TIME_ELAPSED, dispatch only): median {:.3f} ms\n",
                             median(gpu_ns) / 1e6);
  } else {
    std::cout << "  GPU time: this device has no timer queries (GL_EXT_disjoint_timer_query); "
                 "only wall time is shown\n";
  }
  std::cout << fmt::format(
      "  wall time (upload + dispatch + read-back, fenced with glFinish): median {:.3f} ms\n",
      median(wall_ns) / 1e6);
}

void dispatch(ComputeKernel& kernel, const Args& args, const RunOptions& o) {
  auto dim = [](const std::vector<std::size_t>& v, std::size_t i) {
    return v.size() > i ? v[i] : 1;
  };
  if (!o.groups.empty()) {
    kernel.run_groups(args, Size3{o.groups[0], dim(o.groups, 1), dim(o.groups, 2)});
  } else if (o.size.size() > 1) {
    kernel.run(args, Size3{o.size[0], o.size[1], dim(o.size, 2)});
  } else if (o.size.size() == 1) {
    kernel.run(args, o.size[0]);
  } else {
    kernel.run(args);
  }
}

int run(const RunOptions& o) {
  check_options(o);
  OutputFiles files;
  for (const auto& [name, path] : output_assignments(o.outputs))
    files.reserve("--out " + name, path);
  const auto timeout = std::chrono::milliseconds(static_cast<long long>(o.timeout_seconds * 1000));
  Context ctx({.device = o.device, .timeout = timeout});
  ComputeKernel kernel(ctx, read_text(o.kernel_path), parse_defines(o.defines), o.kernel_path);
  KernelArguments arguments(kernel.variables(), {.kernel_path = o.kernel_path,
                                                 .inputs = o.inputs,
                                                 .outputs = o.outputs,
                                                 .uniforms = o.uniforms,
                                                 .size = o.size,
                                                 .groups = o.groups,
                                                 .row_major = o.row_major,
                                                 .unchecked_size = o.unchecked_size});
  const Args& args = arguments.args();
  kernel.set_timing(o.profile);
  std::vector<double> gpu_ns, wall_ns;
  for (int r = 0; r < o.repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    dispatch(kernel, args, o);
    ctx.finish();
    wall_ns.push_back(
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
    gpu_ns.push_back(kernel.last_gpu_ns());
  }
  arguments.save_outputs(files);
  files.commit();
  arguments.report_outputs();
  if (o.profile) print_profile(o, ctx.info(), gpu_ns, wall_ns);
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
                  "NAME=file.npy: write this storage array to a .npy file after the run (the "
                  "path is checked before the run; all outputs are written or none)");
  sub->add_option("-s,--set", o->uniforms,
                  "NAME=v[,v...]: set a uniform (scalar, vector, matrix, array); integers are "
                  "decimal or 0x hexadecimal, range-checked for the declared type");
  sub->add_option("-D,--define", o->defines,
                  "NAME[=VALUE]: prepend #define NAME VALUE to the kernel");
  sub->add_option("--size", o->size,
                  "work items: N, or X,Y[,Z] (default: the input arrays' length); at most the "
                  "longest array's length")
      ->delimiter(',');
  sub->add_option("--groups", o->groups, "dispatch exactly X[,Y[,Z]] work groups (not with --size)")
      ->delimiter(',');
  sub->add_flag("--unchecked-size", o->unchecked_size,
                "allow --size past the longest array (the kernel bounds its own accesses)");
  sub->add_option("-d,--device", o->device, "auto, an index, or a word of the renderer");
  sub->add_flag("--row-major", o->row_major,
                "matrices in the inputs and --set values are row-major");
  sub->add_flag("--profile", o->profile,
                "time the kernel: GPU timer queries (where they see shader work) and wall clock");
  sub->add_option("--repeat", o->repeat,
                  "run the kernel this many times, at least 1 (for --profile)");
  sub->add_option("--timeout", o->timeout_seconds,
                  "give up on a run after this many seconds (0: never); see docs/reliability.md");
  return [o]() { return run(*o); };
}

}  // namespace gpgpu::cli
