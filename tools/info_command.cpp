// `gpgpu info`: the devices EGL offers and what the chosen one can do.
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/limits.hpp"
#include "info_features.hpp"

namespace gpgpu::cli {

namespace {

nlohmann::json limits_json(const DeviceInfo& info) {
  nlohmann::json limits = nlohmann::json::object();
  for (const auto& name : limit_names()) {
    limits[std::string(name.gl_name)] = limit_value(info, name.gl_name);
  }
  return limits;
}

// A profile's figure for `gl_name`, or "-" where it leaves the driver's own.
std::string profile_figure(const LimitProfile& p, std::string_view gl_name) {
  for (const auto& l : p.limits) {
    if (l.gl_name == gl_name) return std::to_string(l.value);
  }
  return "-";
}

// `gpgpu info --profiles`: every profile's figures side by side, then each one's source.
void print_profiles(bool json) {
  const auto& profiles = limit_profiles();
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& p : profiles) {
      nlohmann::json limits = nlohmann::json::object();
      for (const auto& l : p.limits) limits[l.gl_name] = l.value;
      out.push_back({{"name", p.name},
                     {"device", p.device},
                     {"source", p.source},
                     {"gles", fmt::format("3.{}", p.gles_minor)},
                     {"limits", limits},
                     {"extensions", p.extensions},
                     {"subgroup_features", p.subgroup_features}});
    }
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::string header = fmt::format("{:<50}", "limit");
  for (const auto& p : profiles) header += fmt::format(" {:>20}", p.name);
  std::cout << header << "\n";
  std::cout << fmt::format("{:<50}", "OpenGL ES");
  for (const auto& p : profiles)
    std::cout << fmt::format(" {:>20}", fmt::format("3.{}", p.gles_minor));
  std::cout << "\n";
  for (const auto& name : limit_names()) {
    std::cout << fmt::format("{:<50}", name.gl_name);
    for (const auto& p : profiles)
      std::cout << fmt::format(" {:>20}", profile_figure(p, name.gl_name));
    std::cout << "\n";
  }
  std::cout << fmt::format("{:<50}", "subgroup features");
  for (const auto& p : profiles) {
    std::cout << fmt::format(" {:>20}", p.subgroup_features == 0
                                            ? std::string("none")
                                            : fmt::format("0x{:x}", p.subgroup_features));
  }
  std::cout << "\n\n('-': the profile leaves the driver's own figure; every figure is the smaller "
               "of the profile's and the driver's)\n\n";
  for (const auto& p : profiles) {
    std::cout << fmt::format(
        "{}: {}\n  source: {}\n  optional extensions: {}\n", p.name, p.device, p.source,
        p.extensions.empty() ? "none" : fmt::format("{}", fmt::join(p.extensions, " ")));
  }
}

nlohmann::json features_json(const std::vector<Feature>& features) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : features) {
    out.push_back({{"feature", f.name},
                   {"status", std::string(to_string(f.result.status))},
                   {"detail", f.result.detail}});
  }
  return out;
}

void print_features(const std::vector<Feature>& features) {
  std::cout << "features (each run once, small, checked against the host):\n";
  for (const auto& f : features) {
    std::cout << fmt::format("  {:<44} {:<8} {}\n", f.name, to_string(f.result.status),
                             f.result.detail);
  }
}

bool features_wrong(const std::vector<Feature>& features) {
  for (const auto& f : features) {
    if (f.result.status == FeatureStatus::Wrong) return true;
  }
  return false;
}

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
      {"limit_profile", i.limit_profile},
      {"limits", limits_json(i)},
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
    bool profiles = false;
    bool features = false;
  };
  auto options = std::make_shared<Options>();
  sub->add_option("-d,--device", options->device,
                  "auto, an index from the list, or a word of the renderer (nvidia, llvmpipe); "
                  "default: $GPGPU_DEVICE or auto");
  sub->add_flag("--json", options->json, "Print JSON");
  sub->add_flag("--all", options->all, "Make a context on every device and show each");
  sub->add_flag(
      "--profiles", options->profiles,
      "List the device-limit profiles (gpgpu --limits NAME, GPGPU_LIMITS) and their figures");
  sub->add_flag("--features", options->features,
                "Run each feature once, small, checked against the host: which work on this "
                "device (and its limit profile), and which are refused and why");
  return [options]() {
    if (options->profiles) {
      print_profiles(options->json);
      return 0;
    }
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
        const auto features = options->features ? probe_features(ctx) : std::vector<Feature>{};
        failures += features_wrong(features) ? 1 : 0;
        if (options->json) {
          auto json = to_json(ctx.info());
          if (options->features) json["features"] = features_json(features);
          out.push_back(json);
        } else {
          std::cout << ctx.info().to_string() << "\n";
          if (options->features) print_features(features);
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
