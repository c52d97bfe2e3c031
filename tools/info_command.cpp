// `gpgpu info`: the devices EGL offers and what the chosen one can do.
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::cli {

namespace {

nlohmann::json to_json(const DeviceInfo& i) {
  return {
      {"device_index", i.device_index},
      {"device_kind", i.device_kind},
      {"vendor", i.vendor},
      {"renderer", i.renderer},
      {"version", i.version},
      {"glsl_version", i.glsl_version},
      {"egl_vendor", i.egl_vendor},
      {"egl_version", i.egl_version},
      {"is_software", i.is_software},
      {"max_texture_size", i.max_texture_size},
      {"max_shader_storage_block_size", i.max_shader_storage_block_size},
      {"max_compute_work_group_count",
       {i.max_compute_work_group_count[0], i.max_compute_work_group_count[1],
        i.max_compute_work_group_count[2]}},
      {"max_compute_work_group_size",
       {i.max_compute_work_group_size[0], i.max_compute_work_group_size[1],
        i.max_compute_work_group_size[2]}},
      {"max_compute_work_group_invocations", i.max_compute_work_group_invocations},
      {"max_compute_shared_memory_size", i.max_compute_shared_memory_size},
      {"max_vertex_attribs", i.max_vertex_attribs},
      {"max_transform_feedback_interleaved_components",
       i.max_transform_feedback_interleaved_components},
      {"max_draw_buffers", i.max_draw_buffers},
      // 0 when no cap was seen in a loop of loop_probe_iterations.
      {"max_loop_iterations", i.max_loop_iterations},
      {"loop_cap_shared_by_all_loops", i.loop_cap_shared_by_all_loops},
      {"loop_probe_iterations", i.loop_probe_iterations},
      // Measured behaviours: 0 / false where not probed (GPUs) or not shown.
      {"lockstep_width", i.lockstep_width},
      {"work_completes_in_call", i.work_completes_in_call},
      {"uniforms_reach_every_dispatch", i.uniforms_reach_every_dispatch},
      {"reset_notification", i.reset_notification},
      {"extensions", i.extensions},
  };
}

}  // namespace

Command add_info_command(CLI::App& app) {
  auto* sub =
      app.add_subcommand("info", "List EGL devices and show the chosen device's capabilities");
  struct Options {
    std::string device = "auto";
    bool json = false;
    bool all = false;
  };
  auto options = std::make_shared<Options>();
  sub->add_option("-d,--device", options->device,
                  "auto, an index from the list, or a word of the renderer (nvidia, llvmpipe); "
                  "default: $GPGPU_DEVICE or auto");
  sub->add_flag("--json", options->json, "Print JSON");
  sub->add_flag("--all", options->all, "Make a context on every device and show each");
  return [options]() {
    const auto devices = list_devices();
    nlohmann::json out = nlohmann::json::array();
    if (!options->json) {
      std::cout << "EGL devices:\n";
      for (const auto& d : devices) {
        std::cout << fmt::format(
            "  {}: {}{}{}\n", d.index, d.kind, d.drm_file.empty() ? "" : " " + d.drm_file,
            d.cuda_device >= 0 ? fmt::format(" (CUDA device {})", d.cuda_device) : "");
      }
      std::cout << "\n";
    }
    std::vector<std::string> wanted;
    if (options->all) {
      for (const auto& d : devices) wanted.push_back(std::to_string(d.index));
    } else {
      wanted.push_back(options->device);
    }
    int failures = 0;
    for (const auto& w : wanted) {
      try {
        Context ctx({.device = w});
        if (options->json) {
          out.push_back(to_json(ctx.info()));
        } else {
          std::cout << ctx.info().to_string() << "\n";
        }
      } catch (const Error& e) {
        ++failures;
        std::cerr << "device " << w << ": " << e.what() << "\n";
      }
    }
    if (options->json) std::cout << out.dump(2) << "\n";
    return failures == static_cast<int>(wanted.size()) ? 1 : 0;
  };
}

}  // namespace gpgpu::cli
