// `gpgpu trace KERNEL.comp --buffer NAME A=a.npy ... --png access.png`: runs an
// instrumented copy of a compute kernel that logs which invocation touched which element of
// one array, prints how well each warp's accesses coalesce, and draws the picture.
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/trace.hpp"
#include "kernel_arguments.hpp"
#include "output_files.hpp"

namespace gpgpu::cli {

Command add_trace_command(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "trace", "Record which invocation touches which element of one array; draw it as a PNG");
  struct Options {
    KernelArgumentOptions arguments;
    std::vector<std::string> defines;
    std::string buffer;
    std::string png = "access.png";
    std::string json;
    std::string device = "auto";
    int warp = 32;
    std::size_t capacity = std::size_t{1} << 22;
  };
  auto o = std::make_shared<Options>();
  sub->add_option("kernel", o->arguments.kernel_path, "GLSL compute shader file")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("inputs", o->arguments.inputs,
                  "NAME=file.npy: bind a .npy file to a kernel variable");
  sub->add_option("-b,--buffer", o->buffer, "the array to trace (member or block name)")
      ->required();
  sub->add_option("-o,--out", o->arguments.outputs,
                  "NAME=file.npy: also write this array after the run");
  sub->add_option("-s,--set", o->arguments.uniforms, "NAME=v[,v...]: set a uniform");
  sub->add_option("-D,--define", o->defines, "NAME[=VALUE]: prepend #define NAME VALUE");
  sub->add_option("--size", o->arguments.size, "work items: N or X,Y[,Z]")->delimiter(',');
  sub->add_option("--groups", o->arguments.groups, "dispatch exactly X[,Y[,Z]] work groups")
      ->delimiter(',');
  sub->add_option("--png", o->png, "where to draw the picture (address vs invocation)");
  sub->add_option("--json", o->json, "also write the statistics as JSON");
  sub->add_option("--warp", o->warp, "invocations per warp for the statistics and colours");
  sub->add_option("--capacity", o->capacity, "accesses to keep (the rest are only counted)");
  sub->add_option("-d,--device", o->device, "auto, an index, or a word of the renderer");
  return [o]() {
    if (!o->arguments.size.empty() && !o->arguments.groups.empty()) {
      throw ArgumentError("give either --size (work items) or --groups (work groups), not both");
    }
    // Every file this command writes is checked before anything runs (output_files.hpp).
    OutputFiles files;
    for (const auto& [name, path] : output_assignments(o->arguments.outputs)) {
      files.reserve("--out " + name, path);
    }
    if (!o->json.empty()) files.reserve("--json", o->json);
    const bool png = access_png_supported();
    if (png) files.reserve("--png", o->png);
    Context ctx({.device = o->device});
    const std::string source = read_text(o->arguments.kernel_path);
    const Defines defines = parse_defines(o->defines);
    ComputeKernel plain(ctx, source, defines, o->arguments.kernel_path);
    KernelArguments arguments(plain.variables(), o->arguments);
    const auto& s = o->arguments.size;
    const auto& g = o->arguments.groups;
    auto dim = [](const std::vector<std::size_t>& v, std::size_t i) {
      return v.size() > i ? v[i] : 1;
    };
    TraceDispatch dispatch = !g.empty()      ? TraceDispatch::groups({g[0], dim(g, 1), dim(g, 2)})
                             : s.size() > 1  ? TraceDispatch::grid({s[0], s[1], dim(s, 2)})
                             : s.size() == 1 ? TraceDispatch::items(s[0])
                                             : TraceDispatch::derived();
    TraceOptions options;
    options.buffer = o->buffer;
    options.capacity = o->capacity;
    AccessTrace trace = trace_kernel(ctx, source, arguments.args(), dispatch, options, defines,
                                     o->arguments.kernel_path);
    std::cout << trace.summary(o->warp);
    arguments.save_outputs(files);
    if (!o->json.empty()) {
      std::ofstream json(files.temporary_path(o->json));
      json << trace.json(o->warp);
      json.close();
      if (!json) throw Error(fmt::format("--json {}: cannot write it", o->json));
    }
    if (png) {
      AccessPictureOptions picture;
      picture.title = fmt::format("{}: {}", o->arguments.kernel_path, o->buffer);
      picture.warp_size = o->warp;
      write_access_png(trace, files.temporary_path(o->png).string(), picture);
    }
    files.commit();
    arguments.report_outputs();
    if (!o->json.empty()) std::cout << "wrote " << o->json << "\n";
    if (png) {
      std::cout << "wrote " << o->png << "\n";
    } else {
      std::cout << "this build has no libpng: no picture drawn\n";
    }
    return 0;
  };
}

}  // namespace gpgpu::cli
