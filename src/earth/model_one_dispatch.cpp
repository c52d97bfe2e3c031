// Model: the one-dispatch step (ModelOptions::one_dispatch_steps, step_kernel.cpp) — when
// it is used, the probe step that decides whether the device runs its work groups together,
// and the flag its grid-wide waits leave when they gave up.
#include <algorithm>
#include <array>
#include <cstdint>

#include <fmt/format.h>

#include "earth/model_impl.hpp"
#include "earth/model_kernels.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::earth {

namespace {

using Choice = ModelOptions::OneDispatch;

// Auto's largest grid: level 7, up to which a step in one dispatch was measured faster
// than its chain of 8 (docs/earth-speed.md, One dispatch a step).
constexpr std::size_t auto_cells = 163842;
constexpr std::size_t default_max_groups = 512;
constexpr std::int64_t buffers_needed = 12;

// Whether this Model can step in one dispatch; when it cannot and `asked` (On), throws
// naming why.
bool possible(const Context& ctx, const Subdomain& d, double nu, bool asked) {
  const std::string no = d.ranks != 1
                             ? fmt::format("the Model holds one of {} ranks' parts", d.ranks)
                         : nu > 0 ? "hyperdiffusion is on (its two kernels are not in the step)"
                                  : "";
  if (!no.empty()) {
    if (asked) throw ArgumentError("earth model: no one-dispatch step, as " + no);
    return false;
  }
  const auto& info = ctx.info();
  const std::int64_t blocks =
      std::min(info.max_compute_shader_storage_blocks, info.max_combined_shader_storage_blocks);
  if (blocks >= buffers_needed || !asked) return blocks >= buffers_needed;
  throw DeviceLimitError(
      fmt::format("earth model: the one-dispatch step binds {} storage buffers; the device's "
                  "GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS allows {}",
                  buffers_needed, blocks),
      "GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS", buffers_needed, blocks);
}

// The tendencies gather all six neighbours first (PRELOAD): measured 2-8% faster in one
// dispatch at levels 3-7 on an H200, where the plain kernels gain nothing from it.
Defines step_defines(const CaseSetup& setup) {
  ModelOptions preload;
  preload.preload_neighbours = true;
  return detail::tendency_defines(setup, preload);
}

}  // namespace

void Model::Impl::choose_one_dispatch() {
  const Choice c = options.one_dispatch_steps;
  const bool software = context->info().is_software;
  if (c == Choice::Off || (c == Choice::Auto && (software || domain.size() > auto_cells))) return;
  if (!possible(*context, domain, nu, c == Choice::On)) return;
  const std::size_t group = static_cast<std::size_t>(options.work_group_size);
  // A software device's waits cannot be long: llvmpipe ends a shader's loops after 65,535
  // iterations in all (its guard against endless loops), a few milliseconds of polls, so
  // its default is one group, which never waits for another.
  const std::size_t groups =
      options.one_dispatch_groups > 0 ? static_cast<std::size_t>(options.one_dispatch_groups)
      : software
          ? 1
          : std::clamp<std::size_t>((domain.size() + group - 1) / group, 1, default_max_groups);
  // By default about 0.1 s of polls on a GPU, under its watchdog.
  const std::uint32_t polls = options.one_dispatch_polls > 0
                                  ? static_cast<std::uint32_t>(options.one_dispatch_polls)
                                  : 1u << 18;
  const std::uint32_t inner = std::min(polls, 4096u);
  one_dispatch = detail::OneDispatch{
      detail::Kernel(*context, detail::one_dispatch_step_source(options.work_group_size),
                     step_defines(setup), "earth step (one dispatch)"),
      Buffer::from(*context, std::vector<std::uint32_t>(3, 0)), groups, inner,
      (polls + inner - 1) / inner};
  one_dispatch_step();  // the probe: its results go to the scratch arrays and next_state
  if (!one_dispatch_gave_up()) return;
  const std::string why = fmt::format(
      "its {} work groups of {} invocations did not all run at once on this device (a "
      "grid-wide wait gave up after {} poll{})",
      groups, group, polls, polls == 1 ? "" : "s");
  one_dispatch.reset();
  if (c == Choice::On) {
    throw LimitError("earth model: no one-dispatch step, as " + why +
                     "; set ModelOptions::one_dispatch_groups lower, or one_dispatch_steps Off");
  }
}

void Model::Impl::one_dispatch_step() {
  std::array<float, 4> next_steps{}, acc_steps{};
  for (int s = 0; s < 4; ++s) {
    next_steps[s] = static_cast<float>(detail::next_weight[s] * dt);
    acc_steps[s] = static_cast<float>(detail::acc_weight[s] * dt);
  }
  Args args = tendency_args(state, 0);
  args.insert(args.end(), {{"neighbour", neighbour},
                           {"correction", correction},
                           {"stage_x", x},
                           {"stage_y", y},
                           {"acc", acc},
                           {"next", next_state},
                           {"Wait", one_dispatch->wait},
                           {"cells", static_cast<std::uint32_t>(domain.size())},
                           {"spin_inner", one_dispatch->spin_inner},
                           {"spin_rounds", one_dispatch->spin_rounds},
                           {"next_steps", next_steps},
                           {"acc_steps", acc_steps}});
  const std::size_t items =
      one_dispatch->groups * static_cast<std::size_t>(options.work_group_size);
  one_dispatch->kernel.run(args, items);
}

bool Model::Impl::one_dispatch_gave_up() {
  if (!one_dispatch) return false;
  const auto words = one_dispatch->wait.to_vector<std::uint32_t>();
  if (words[2] == 0) return false;
  one_dispatch->wait.upload(std::vector<std::uint32_t>(3, 0));
  return true;
}

}  // namespace gpgpu::earth
