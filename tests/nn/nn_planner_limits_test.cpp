// Planner tests of gpgpu::nn's compute backend under device-limit profiles (gpgpu/limits.hpp):
// every kernel that a plan of a built-in network compiles (each stage's kernels, the GEMMs
// with every candidate tiling a tuning may keep, the batch gather, the loss, the optimizers)
// is planned for a DeviceInfo clamped to each profile and read back from its complete source,
// without a driver: its storage blocks, their binding points, its work group and its shared
// memory (shader/shared_memory.hpp) must be within the clamped limits. A planner that ignores
// one of those limits produces a kernel over it, and these tests name the kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "compute/gemm.hpp"
#include "compute/runners.hpp"
#include "gpgpu/limits.hpp"
#include "gpgpu/nn.hpp"
#include "model_state.hpp"
#include "plan/stage_plan.hpp"
#include "shader/glsl_preprocessor.hpp"
#include "shader/glsl_source.hpp"
#include "shader/shared_memory.hpp"
#include "test_support.hpp"

namespace {

namespace nn = gpgpu::nn;
using gpgpu::DeviceInfo;
using gpgpu::KernelSource;

// A large GPU's limits, as NVIDIA's driver reports them on an H200 (docs: gpu-facts): the
// device every profile clamps.
DeviceInfo large_gpu() {
  DeviceInfo d;
  d.renderer = "planner test GPU";
  d.gl_major = 3;
  d.gl_minor = 2;
  d.max_compute_work_group_invocations = 1024;
  d.max_compute_work_group_size[0] = d.max_compute_work_group_size[1] = 1024;
  d.max_compute_work_group_size[2] = 64;
  for (auto& c : d.max_compute_work_group_count) c = 2147483647;
  d.max_compute_shared_memory_size = 49152;
  d.max_compute_shader_storage_blocks = 16;
  d.max_combined_shader_storage_blocks = 96;
  d.max_shader_storage_buffer_bindings = 96;
  d.max_shader_storage_block_size = 2147483647;
  d.max_texture_size = 32768;
  return d;
}

// What a compute shader declares, read from its complete source as the preprocessor leaves it.
struct Declared {
  std::vector<long long> bindings;  // one per storage block
  long long local_size[3] = {1, 1, 1};
  std::optional<long long> shared_bytes;
};

std::string without_comments(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 2, "//") == 0) {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (s.compare(i, 2, "/*") == 0) {
      const auto end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 1;
      continue;
    }
    if (i < s.size()) out += s[i];
  }
  return out;
}

std::string trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

// "name = value" entries of a layout qualifier, the value evaluated with the source's macros.
std::optional<long long> qualifier(const std::string& q, std::string_view name,
                                   const gpgpu::detail::Macros& macros) {
  std::size_t start = 0;
  while (start <= q.size()) {
    const std::size_t comma = std::min(q.find(',', start), q.size());
    const std::string entry = q.substr(start, comma - start);
    const auto eq = entry.find('=');
    if (eq != std::string::npos && trimmed(entry.substr(0, eq)) == name) {
      const auto v = gpgpu::detail::constant_value(trimmed(entry.substr(eq + 1)), macros);
      if (!v) ADD_FAILURE() << "cannot evaluate " << name << " in layout(" << q << ")";
      return v;
    }
    start = comma + 1;
  }
  return std::nullopt;
}

bool has_word(std::string_view text, std::string_view word) {
  for (std::size_t at = text.find(word); at != std::string_view::npos;
       at = text.find(word, at + 1)) {
    const bool left =
        at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
    const std::size_t end = at + word.size();
    const bool right = end == text.size() ||
                       !(std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_');
    if (left && right) return true;
  }
  return false;
}

Declared read_declared(const KernelSource& k, const std::string& complete) {
  const auto pre = gpgpu::detail::preprocess(without_comments(complete));
  const std::string& code = pre.lines;
  Declared d;
  for (std::size_t at = code.find("layout"); at != std::string::npos;
       at = code.find("layout", at + 1)) {
    const auto open = code.find('(', at);
    const auto close = code.find(')', open);
    const auto end = code.find_first_of(";{", close);
    if (open == std::string::npos || close == std::string::npos || end == std::string::npos) {
      break;
    }
    const std::string q = code.substr(open + 1, close - open - 1);
    const std::string_view rest(code.data() + close + 1, end - close - 1);
    if (has_word(rest, "buffer")) {
      const auto binding = qualifier(q, "binding", pre.macros);
      EXPECT_TRUE(binding.has_value()) << k.label << ": a storage block without a binding";
      d.bindings.push_back(binding.value_or(1 << 30));
    }
    static constexpr const char* axes[] = {"local_size_x", "local_size_y", "local_size_z"};
    for (int a = 0; a < 3; ++a) {
      if (const auto v = qualifier(q, axes[a], pre.macros)) d.local_size[a] = *v;
    }
  }
  d.shared_bytes = gpgpu::detail::shared_memory_bytes(complete);
  return d;
}

// The plans of the devices and networks share most of their kernels (the same GEMM, the same
// optimizer step, the same source where two profiles' limits do not change it): a complete
// source is read once (a third of the kernels planned), which keeps this test short under
// the sanitizers. Its first kernel names it in a failure.
const Declared& declared(const KernelSource& k, const DeviceInfo& info) {
  static std::map<std::string, Declared> read;
  const std::string complete =
      gpgpu::detail::complete_source(k.source, GL_COMPUTE_SHADER, info, k.defines, "");
  const auto found = read.find(complete);
  return found != read.end() ? found->second
                             : read.emplace(complete, read_declared(k, complete)).first->second;
}

// Every limit a kernel meets: "" when it fits, else what it exceeds.
std::string over_limits(const KernelSource& k, const DeviceInfo& info) {
  const Declared& d = declared(k, info);
  std::string over;
  auto check = [&](long long needed, long long allowed, const std::string& what) {
    if (needed > allowed) {
      over += " " + what + " " + std::to_string(needed) + " > " + std::to_string(allowed) + ";";
    }
  };
  check(static_cast<long long>(d.bindings.size()),
        std::min(info.max_compute_shader_storage_blocks, info.max_combined_shader_storage_blocks),
        "storage blocks");
  for (const long long b : d.bindings) {
    check(b + 1, info.max_shader_storage_buffer_bindings, "binding points");
  }
  check(d.local_size[0] * d.local_size[1] * d.local_size[2],
        info.max_compute_work_group_invocations, "invocations");
  for (int a = 0; a < 3; ++a) {
    check(d.local_size[a], info.max_compute_work_group_size[a],
          "work-group size " + std::to_string(a));
  }
  if (!d.shared_bytes) {
    over += " shared memory not estimated;";
  } else {
    check(*d.shared_bytes, info.max_compute_shared_memory_size, "shared bytes");
  }
  return over;
}

// The large GPU with 16 KB of shared memory but 1024 invocations (Adreno 605-612), which no
// profile has: the shared-memory limit alone then bounds the GEMM tiles.
DeviceInfo sixteen_kb_gpu() {
  DeviceInfo d = large_gpu();
  d.renderer = "planner test GPU with 16 KB";
  d.max_compute_shared_memory_size = 16384;
  return d;
}

// The devices: the large GPU itself, with 16 KB, then clamped to every profile.
std::vector<DeviceInfo> devices() {
  std::vector<DeviceInfo> list{large_gpu(), sixteen_kb_gpu()};
  for (const auto& p : gpgpu::limit_profiles()) {
    list.push_back(gpgpu::clamp_to_profile(large_gpu(), p));
  }
  return list;
}

std::string device_name(const DeviceInfo& info) {
  return info.limit_profile.empty() ? info.renderer : info.limit_profile;
}

struct NetCase {
  std::string name;
  nn::Shape input;
  std::size_t classes;
};

// Every built-in network on Fashion-MNIST's and CIFAR-10's image shapes.
std::vector<NetCase> net_cases() {
  std::vector<NetCase> cases;
  for (const auto& name : nn::builtin_net_names()) {
    cases.push_back({name, {1, 28, 28}, 10});
    cases.push_back({name, {3, 32, 32}, 10});
  }
  return cases;
}

using Kernels = nn::BackendOptions::Kernels;

// The kernels of a network's plans: training at its recipe's batch, evaluation at that batch,
// one sample and 1000, with the GEMMs' shared-memory and direct kernels.
std::vector<KernelSource> planned(const DeviceInfo& info, const NetCase& c,
                                  std::size_t* plan_count = nullptr) {
  auto recipe = nn::builtin_net(gpgpu::test::context(), c.name, c.input, c.classes);
  const auto& state = recipe.model.state();
  std::vector<KernelSource> all;
  const std::size_t batch = recipe.options.batch;
  const nn::detail::PlanKey keys[] = {{batch, nn::Mode::Train, true, false},
                                      {batch, nn::Mode::Train, true, true},
                                      {batch, nn::Mode::Eval, true, false},
                                      {1, nn::Mode::Eval, true, false},
                                      {1000, nn::Mode::Eval, true, false}};
  for (const auto& key : keys) {
    const auto plan = nn::detail::make_stage_plan(state, key);
    for (const Kernels kernels : {Kernels::SharedMemory, Kernels::Direct}) {
      const auto sources =
          nn::detail::compute_plan_sources(info, plan, nn::BackendOptions{.kernels = kernels});
      all.insert(all.end(), sources.begin(), sources.end());
      if (plan_count != nullptr) ++*plan_count;
    }
  }
  return all;
}

// A kernel's source and defines, which with the device fix what the checker reads.
std::string kernel_key(const KernelSource& k) {
  std::string key = k.source;
  for (const auto& [name, value] : k.defines) key += "\n#define " + name + " " + value;
  return key;
}

TEST(NnPlannerLimits, EveryKernelOfTheBuiltInNetsFitsEveryProfile) {
  for (const auto& info : devices()) {
    std::set<std::string> checked;  // half the kernels planned for a device repeat
    for (const auto& c : net_cases()) {
      std::size_t plans = 0;
      const auto kernels = planned(info, c, &plans);
      EXPECT_GT(kernels.size(), 4 * plans) << c.name;
      for (const auto& k : kernels) {
        if (!checked.insert(kernel_key(k)).second) continue;
        EXPECT_EQ(over_limits(k, info), "") << k.label << " of " << c.name << " "
                                            << c.input.to_string() << " on " << device_name(info);
      }
    }
  }
}

// A Conv2D with its pooling fused (pool_fusion.hpp) plans within every profile too, in both
// backward forms: evaluation fuses everywhere (its kernels bind OpenGL ES 3.1's 4 storage
// buffers), training where a kernel binds 6 and apart elsewhere; the fused kernels are in
// the plan's sources, so the checker reads them.
TEST(NnPlannerLimits, FusedConvolutionAndPoolingFitEveryProfile) {
  using Fusion = nn::BackendOptions::Fusion;
  const auto recipe = nn::builtin_net(gpgpu::test::context(), "small", {1, 28, 28}, 10);
  for (const auto& info : devices()) {
    const bool six =
        std::min({info.max_compute_shader_storage_blocks, info.max_combined_shader_storage_blocks,
                  info.max_shader_storage_buffer_bindings}) >= 6;
    for (const nn::Mode mode : {nn::Mode::Train, nn::Mode::Eval}) {
      const auto plan = nn::detail::make_stage_plan(recipe.model.state(), {64, mode, true, false});
      for (const Fusion fusion : {Fusion::GradientKernel, Fusion::GradientInLoads, Fusion::Off}) {
        for (const Kernels kernels : {Kernels::SharedMemory, Kernels::Direct}) {
          nn::BackendOptions options{.kernels = kernels};
          options.fuse_pooling = fusion;
          std::size_t fused = 0;
          for (const auto& k : nn::detail::compute_plan_sources(info, plan, options)) {
            if (k.label.find("nn conv2d + ") != std::string::npos) ++fused;
            EXPECT_EQ(over_limits(k, info), "") << k.label << " on " << device_name(info);
          }
          const bool fuses = fusion != Fusion::Off && (mode == nn::Mode::Eval || six);
          EXPECT_EQ(fused > 0, fuses) << device_name(info) << " mode " << static_cast<int>(mode)
                                      << " fusion " << static_cast<int>(fusion);
        }
      }
    }
  }
}

// The GEMMs keep their shared-memory tiles under every profile (smaller blocks or slices
// where the large GPU's do not fit), and the cost model's choice is among those that fit.
TEST(NnPlannerLimits, GemmsKeepSharedMemoryTilesUnderEveryProfile) {
  const nn::detail::GemmShape shapes[] = {
      {64, 128, 3136}, {50176, 32, 25}, {26, 32, 50176}, {100352, 32, 1600}, {10, 1000, 640}};
  const auto large = nn::detail::candidate_tilings(large_gpu(), shapes[0], true);
  for (const auto& info : devices()) {
    for (const auto& s : shapes) {
      for (const bool computed : {false, true}) {
        const auto list = nn::detail::candidate_tilings(info, s, true, computed);
        ASSERT_FALSE(list.empty());
        EXPECT_TRUE(list.front().shared) << device_name(info) << " " << s.m << "x" << s.n;
        for (const auto& t : list) {
          EXPECT_LE(t.threads(), info.max_compute_work_group_invocations) << t.to_string();
          EXPECT_LE(t.threads(), info.max_compute_work_group_size[0]) << t.to_string();
        }
      }
    }
  }
  // 16 KB of shared memory (an Adreno 605-612 has 1024 invocations and 16 KB) takes the
  // 128 x 128 block with slices of 8 instead of 16 (16.9 KB); es31-minimum's 128 invocations
  // leave out the 256-invocation blocks.
  auto find = [](const std::vector<nn::detail::GemmTiling>& list, int bm, int bn, int tm, int tn) {
    return std::find_if(list.begin(), list.end(), [&](const nn::detail::GemmTiling& t) {
      return t.bm == bm && t.bn == bn && t.tm == tm && t.tn == tn;
    });
  };
  const auto sixteen_kb = sixteen_kb_gpu();
  const auto narrow = nn::detail::candidate_tilings(sixteen_kb, shapes[0], true);
  const auto big = find(large, 128, 128, 8, 8);
  ASSERT_NE(big, large.end());
  EXPECT_EQ(big->bk, 16);
  const auto fitted = find(narrow, 128, 128, 8, 8);
  ASSERT_NE(fitted, narrow.end());
  EXPECT_EQ(fitted->bk, 8);
  const auto minimum = gpgpu::clamp_to_profile(large_gpu(), gpgpu::limit_profile("es31-minimum"));
  const auto small = nn::detail::candidate_tilings(minimum, shapes[0], true);
  EXPECT_NE(find(large, 64, 64, 4, 4), large.end());
  EXPECT_EQ(find(small, 64, 64, 4, 4), small.end()) << "256 invocations";
  EXPECT_EQ(find(small, 128, 128, 8, 8), small.end()) << "256 invocations";
  EXPECT_NE(find(small, 64, 64, 8, 4), small.end()) << "128 invocations";
  // A tuned tiling the profile cannot run is not taken from the tuning cache.
  EXPECT_FALSE(nn::detail::fitted_tiling(minimum, shapes[0], *find(large, 64, 64, 4, 4)));
  EXPECT_TRUE(nn::detail::fitted_tiling(large_gpu(), shapes[0], *find(large, 64, 64, 4, 4)));
}

// The checker itself: kernels over each limit are seen over it.
TEST(NnPlannerLimits, TheCheckerSeesEachLimit) {
  const auto minimum = gpgpu::clamp_to_profile(large_gpu(), gpgpu::limit_profile("es31-minimum"));
  auto kernel = [](const std::string& decls, gpgpu::Defines d = {}) {
    return KernelSource{decls + "void main() {}\n", std::move(d), "checker kernel"};
  };
  const std::string four =
      "layout(local_size_x = 128) in;\n"
      "layout(std430, binding = 0) buffer A { float a[]; };\n"
      "layout(std430, binding = 1) buffer B { float b[]; };\n"
      "layout(std430, binding = 2) buffer C { float c[]; };\n"
      "layout(std430, binding = 3) buffer D { float d[]; };\n"
      "shared vec4 s[BK][64];\n";
  EXPECT_EQ(over_limits(kernel(four, {{"BK", "16"}}), minimum), "");
  EXPECT_NE(over_limits(kernel(four, {{"BK", "17"}}), minimum).find("shared bytes"),
            std::string::npos);
  EXPECT_NE(over_limits(kernel(four + "layout(std430, binding = 4) buffer E { float e[]; };\n",
                               {{"BK", "1"}}),
                        minimum)
                .find("storage blocks"),
            std::string::npos);
  std::string high = four;
  high.replace(high.find("binding = 3"), 11, "binding = 7");
  EXPECT_NE(over_limits(kernel(high, {{"BK", "1"}}), minimum).find("binding points"),
            std::string::npos);
  EXPECT_NE(over_limits(kernel("#if N > 2\nlayout(local_size_x = T) in;\n#endif\nshared float s;\n",
                               {{"N", "3"}, {"T", "256"}}),
                        minimum)
                .find("invocations"),
            std::string::npos);
  EXPECT_EQ(over_limits(kernel("#if N > 2\nlayout(local_size_x = T) in;\n#endif\nshared float s;\n",
                               {{"N", "2"}, {"T", "256"}}),
                        minimum),
            "")
      << "a declaration the preprocessor leaves out";
}

}  // namespace
