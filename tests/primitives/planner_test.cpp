// The primitives' planners on small devices. For every device-limit profile (over the figures
// of a software device and of two GPUs, one with 32-wide and one with 64-wide subgroups, and
// those figures alone) and several tunings, every kernel each primitive would compile is
// completed as ComputeKernel completes it and read back from its GLSL: the storage blocks it
// uses and their binding points, its work group, its shared memory (the estimate the link-time
// check uses), its samplers, buffer textures and subgroup extensions, each against the
// device's figure. Nothing runs: the planners see only DeviceInfo and the tuning, as they do
// on a device.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cache_support.hpp"
#include "gl/gl.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/limits.hpp"
#include "ops/primitives/primitive_plans.hpp"
#include "ops/primitives/primitive_tuning.hpp"
#include "ops/primitives/reduce_plan.hpp"
#include "ops/primitives/scan_plan.hpp"
#include "ops/primitives/sort_plan.hpp"
#include "ops/primitives/subgroup_glsl.hpp"
#include "shader/glsl_preprocessor.hpp"
#include "shader/glsl_source.hpp"
#include "shader/shared_memory.hpp"

namespace gpgpu::test {
namespace {

using primitives::KernelSpec;

// ---- devices ------------------------------------------------------------------------------

DeviceInfo common_figures() {
  DeviceInfo d;
  d.gl_major = 3;
  d.gl_minor = 2;
  d.max_texture_size = 16384;
  d.max_3d_texture_size = 2048;
  d.max_array_texture_layers = 2048;
  d.max_texture_buffer_size = 134217728;  // NVIDIA's, zink's and llvmpipe's 2^27
  d.max_shader_storage_block_size = std::int64_t{1} << 27;
  d.max_compute_work_group_count[0] = d.max_compute_work_group_count[1] =
      d.max_compute_work_group_count[2] = 65535;
  d.max_compute_work_group_size[0] = d.max_compute_work_group_size[1] = 1024;
  d.max_compute_work_group_size[2] = 64;
  d.max_compute_work_group_invocations = 1024;
  d.max_vertex_attribs = 16;
  d.max_transform_feedback_interleaved_components = 64;
  d.max_transform_feedback_separate_attribs = 4;
  d.max_transform_feedback_separate_components = 4;
  d.max_draw_buffers = d.max_color_attachments = 8;
  d.max_renderbuffer_size = 16384;
  d.max_uniform_block_size = 65536;
  d.max_image_units = d.max_compute_image_uniforms = 8;
  d.max_compute_texture_image_units = d.max_texture_image_units = 32;
  d.max_vertex_texture_image_units = 32;
  d.max_combined_texture_image_units = 96;
  d.max_compute_uniform_components = 1024;
  d.max_viewport_dims[0] = d.max_viewport_dims[1] = 16384;
  d.extensions = {"GL_EXT_texture_buffer", "GL_OES_texture_buffer", "GL_EXT_color_buffer_float",
                  "GL_EXT_buffer_storage", "GL_EXT_disjoint_timer_query"};
  return d;
}

// Mesa's llvmpipe as `gpgpu info` reports it (Mesa 22.3, 256-bit SIMD: subgroups emulated).
DeviceInfo software_device() {
  DeviceInfo d = common_figures();
  d.renderer = "llvmpipe (LLVM 15.0.6, 256 bits)";
  d.is_software = true;
  d.compute_units = 2;
  d.max_compute_shared_memory_size = 32768;
  d.max_compute_shader_storage_blocks = 16;
  d.max_combined_shader_storage_blocks = 80;
  d.max_shader_storage_buffer_bindings = 80;
  d.max_loop_iterations = 65535;
  // What the lockstep probe measures there (gl/lockstep_probe.hpp: 8 lanes of 32 bits on
  // 256-bit AVX2): the width the primitives' emulated subgroups take, which the planners read
  // from DeviceInfo, not from the renderer string.
  d.lockstep_width = 8;
  return d;
}

// An NVIDIA data-centre GPU as its GL driver reports it (48 KB of shared memory, 16 storage
// blocks per compute shader, 32-wide subgroups with every feature).
DeviceInfo gpu_device(int subgroup_size) {
  DeviceInfo d = common_figures();
  d.renderer =
      subgroup_size == 32 ? "a GPU with 32-wide subgroups" : "a GPU with 64-wide subgroups";
  d.compute_units = 132;
  d.max_compute_shared_memory_size = subgroup_size == 32 ? 49152 : 65536;
  d.max_compute_shader_storage_blocks = 16;
  d.max_combined_shader_storage_blocks = 96;
  d.max_shader_storage_buffer_bindings = 96;
  d.subgroup_size = subgroup_size;
  d.subgroup_features = 0xFF;
  d.subgroup_in_compute = true;
  d.extensions.push_back("GL_KHR_shader_subgroup");
  return d;
}

struct Device {
  std::string name;
  DeviceInfo info;
};

// Each base device with its own figures and clamped to every profile.
const std::vector<Device>& devices() {
  static const std::vector<Device> all = [] {
    std::vector<Device> out;
    for (const auto& [base, info] : {std::pair{"software", software_device()},
                                     {"gpu32", gpu_device(32)},
                                     {"gpu64", gpu_device(64)}}) {
      out.push_back({base, info});
      for (const auto& profile : limit_profiles()) {
        out.push_back({std::string(base) + "/" + profile.name, clamp_to_profile(info, profile)});
      }
    }
    return out;
  }();
  return all;
}

// The device defaults, and the tunings a user may set on any device: the other kernel family
// (CPU-style on GPUs and the reverse), subgroup kernels where the device has them natively
// or emulated (llvmpipe), with Onesweep.
std::vector<std::pair<std::string, PrimitiveTuning>> tunings(const DeviceInfo& info) {
  std::vector<std::pair<std::string, PrimitiveTuning>> out;
  out.emplace_back("defaults", PrimitiveTuning{});
  PrimitiveTuning other;
  other.texel_loads = info.is_software ? 0 : 1;
  other.sort_serial = info.is_software ? 0 : 1;
  other.subgroups = 0;
  out.emplace_back("other family", other);
  if (primitives::native_subgroups(info) || primitives::emulated_subgroup_size(info) > 0) {
    PrimitiveTuning sg;
    sg.subgroups = 1;
    sg.texel_loads = 0;
    sg.sort_serial = 0;
    sg.sort_onesweep = 1;
    if (info.is_software) sg.onesweep_local = 64;  // as primitives_subgroup_test sets it
    out.emplace_back("subgroups, onesweep", sg);
  }
  for (auto& [name, t] : out) t = primitives::effective_tuning(info, t, std::nullopt);
  // Shapes stored for a larger device (store_primitive_tuning keys them by the driver, not
  // by the profile): the largest of each family, shrunk to this device's limits.
  PrimitiveTuning large;
  large.reduce_local = large.scan_local = 1024;
  large.scan_scalars = 32;
  large.sort_serial = 0;
  large.sort_local = 512;
  large.sort_keys = 32;
  large.texel_loads = 0;
  out.emplace_back("stored, ranked", primitives::effective_tuning(info, {}, large));
  large.sort_serial = 1;
  large.sort_local = 64;
  large.sort_keys = 8192;
  large.texel_loads = 1;
  out.emplace_back("stored, serial", primitives::effective_tuning(info, {}, large));
  return out;
}

// ---- the kernels --------------------------------------------------------------------------

std::vector<KernelSpec> all_kernels(const DeviceInfo& info, const PrimitiveTuning& t) {
  std::vector<KernelSpec> out;
  const auto add = [&](std::vector<KernelSpec> more) {
    out.insert(out.end(), more.begin(), more.end());
  };
  const std::vector<Operator> ops = {Op::Sum, Op::Max, GlslOp{"a * b", "1"}};
  for (ElementType type : {ElementType::Float32, ElementType::Int32, ElementType::Uint32}) {
    for (int components = 1; components <= 4; ++components) {
      for (const Operator& op : ops) {
        add(primitives::reduce_kernels(info, t, type, components, op));
        for (ScanAlgorithm a :
             {ScanAlgorithm::Auto, ScanAlgorithm::SinglePass, ScanAlgorithm::ReduceThenScan}) {
          add(primitives::scan_kernels(info, t, type, components, op, a));
        }
        for (std::size_t longest : {std::size_t{8}, std::size_t{1} << 20, std::size_t{1} << 25}) {
          add(primitives::segmented_kernels(info, t, type, components, op, longest));
        }
      }
      for (auto kind : {primitives::CompactKind::CopyIf, primitives::CompactKind::Partition,
                        primitives::CompactKind::Unique}) {
        add(primitives::compaction_kernels(info, t, type, components, kind, "i % 3u == 0u"));
      }
    }
    add(primitives::argextreme_kernels(info, t, type, true));
    add(primitives::argextreme_kernels(info, t, type, false));
    for (bool values : {false, true}) {
      for (std::size_t n : {std::size_t{1000}, std::size_t{1} << 24, std::size_t{1} << 30}) {
        add(primitives::sort_kernels(info, t, type, values, n));
      }
    }
    for (std::uint32_t bins : {1u, 256u, 1021u, 3000u, 4093u, 8189u, 1u << 20}) {
      if (type != ElementType::Float32 || bins <= (1u << 16)) {
        add(primitives::histogram_kernels(info, t, type, bins));
      }
    }
  }
  return out;
}

// ---- reading a kernel's needs back from its GLSL ------------------------------------------

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size();) {
    if (std::isspace(static_cast<unsigned char>(text[i])) != 0) {
      ++i;
    } else if (word_char(text[i])) {
      const std::size_t start = i;
      while (i < text.size() && word_char(text[i])) ++i;
      out.push_back(text.substr(start, i - start));
    } else {
      out.emplace_back(1, text[i++]);
    }
  }
  return out;
}

// Every #define's name and body (object- or function-like), active or not: a name a macro
// brings into the code counts as used.
std::map<std::string, std::string> macro_bodies(const std::string& source) {
  std::map<std::string, std::string> out;
  std::istringstream in(source);
  for (std::string line; std::getline(in, line);) {
    const auto w = words(line);
    if (w.size() >= 3 && w[0] == "#" && w[1] == "define") {
      const auto at = line.find(w[2], line.find("define") + 6) + w[2].size();
      out[w[2]] += " " + line.substr(at);
    }
  }
  return out;
}

struct StorageBlock {
  std::string name;
  long long binding = -1;
  std::vector<std::string> members;
};

struct Needs {
  long long local[3] = {1, 1, 1};
  std::optional<long long> shared;
  std::vector<StorageBlock> blocks;  // those the code uses
  int samplers = 0;
  bool buffer_textures = false;
  bool subgroups = false;
};

// The storage blocks an active source declares: layout(... binding = B ...) ... buffer N {...};
std::vector<StorageBlock> declared_blocks(const std::vector<std::string>& w,
                                          const detail::Macros& macros,
                                          std::set<std::size_t>& inside) {
  std::vector<StorageBlock> out;
  for (std::size_t i = 0; i + 2 < w.size(); ++i) {
    if (w[i] != "buffer" || w[i + 2] != "{") continue;
    StorageBlock b;
    b.name = w[i + 1];
    std::size_t layout = i;
    while (layout > 0 && w[layout] != "layout" && w[layout] != ";" && w[layout] != "}") --layout;
    for (std::size_t k = layout; k < i; ++k) {
      if (w[k] == "binding" && w[k + 1] == "=") {
        b.binding = detail::constant_value(w[k + 2], macros).value_or(-1);
      }
    }
    std::size_t k = i + 3;
    for (; k < w.size() && w[k] != "}"; ++k) {
      if (word_char(w[k][0]) && (w[k + 1] == "[" || w[k + 1] == ";")) b.members.push_back(w[k]);
    }
    for (std::size_t j = layout; j <= k; ++j) inside.insert(j);
    out.push_back(b);
  }
  return out;
}

Needs read_needs(const std::string& complete) {
  Needs n;
  const detail::Preprocessed p = detail::preprocess(complete);
  const auto w = words(p.lines);
  for (std::size_t i = 0; i + 4 < w.size(); ++i) {
    if (w[i] == "local_size_x" || w[i] == "local_size_y" || w[i] == "local_size_z") {
      std::string expression;
      for (std::size_t k = i + 2; k < w.size() && w[k] != "," && w[k] != ")"; ++k) {
        expression += w[k] + " ";
      }
      n.local[w[i].back() - 'x'] = detail::constant_value(expression, p.macros).value_or(1 << 30);
    }
    if (w[i] == "uniform" && w[i + 2].find("sampler") != std::string::npos) ++n.samplers;
  }
  n.shared = detail::shared_memory_bytes(complete);
  std::set<std::size_t> inside;
  auto blocks = declared_blocks(w, p.macros, inside);
  // Names the code uses, and those the macros it uses bring in.
  std::set<std::string> used;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (!inside.count(i) && word_char(w[i][0])) used.insert(w[i]);
  }
  const auto bodies = macro_bodies(complete);
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [name, body] : bodies) {
      if (!used.count(name)) continue;
      for (const auto& word : words(body)) grew = used.insert(word).second || grew;
    }
  }
  for (const auto& b : blocks) {
    if (std::any_of(b.members.begin(), b.members.end(),
                    [&](const std::string& m) { return used.count(m) != 0; })) {
      n.blocks.push_back(b);
    }
  }
  for (const char* t : {"samplerBuffer", "isamplerBuffer", "usamplerBuffer"}) {
    n.buffer_textures = n.buffer_textures || used.count(t) != 0;
  }
  n.subgroups = complete.find("#extension GL_KHR_shader_subgroup") != std::string::npos;
  return n;
}

// The devices share most of their kernels (a profile that does not bind a planner leaves its
// source as the device's own): each complete source is read once, which keeps this test short
// under the sanitizers.
const Needs& needs_of(const std::string& complete) {
  static std::map<std::string, Needs> read;
  const auto found = read.find(complete);
  return found != read.end() ? found->second
                             : read.emplace(complete, read_needs(complete)).first->second;
}

// Every way `kernel` exceeds `info`, one message each ("" if it fits).
std::string misfits(const std::string& complete, const DeviceInfo& info) {
  const Needs& n = needs_of(complete);
  std::string out;
  const auto over = [&](const std::string& what, long long needed, long long allowed) {
    if (needed > allowed) out += fmt::format("  {}: {} > {}\n", what, needed, allowed);
  };
  over("invocations", n.local[0] * n.local[1] * n.local[2],
       info.max_compute_work_group_invocations);
  over("local_size_x", n.local[0], info.max_compute_work_group_size[0]);
  if (!n.shared) out += "  shared memory: not readable from the source\n";
  over("shared bytes", n.shared.value_or(0), info.max_compute_shared_memory_size);
  over("storage blocks", static_cast<long long>(n.blocks.size()),
       std::min(info.max_compute_shader_storage_blocks, info.max_combined_shader_storage_blocks));
  for (const auto& b : n.blocks) {
    if (b.binding < 0) out += fmt::format("  block {}: binding not read\n", b.name);
    over("binding of " + b.name, b.binding + 1, info.max_shader_storage_buffer_bindings);
  }
  over("samplers", n.samplers, info.max_compute_texture_image_units);
  if (n.buffer_textures && !info.has_texture_buffers()) out += "  buffer textures\n";
  if (n.buffer_textures && info.gl_minor < 2 &&
      complete.find("#extension " + info.texture_buffer_extension() + " : require") ==
          std::string::npos) {
    out += "  buffer textures without their extension enabled\n";
  }
  if (n.subgroups && !info.has_subgroup_features(primitives::required_subgroup_features())) {
    out += "  GL_KHR_shader_subgroup\n";
  }
  return out;
}

std::string complete(const std::string& source, const DeviceInfo& info) {
  return detail::complete_source(source, GL_COMPUTE_SHADER, info, {},
                                 "uniform uint gpgpu_count;\n"
                                 "uniform uint gpgpu_row_stride;\n"
                                 "uint gpgpu_index() { return gl_GlobalInvocationID.x; }\n");
}

// ---- tests --------------------------------------------------------------------------------

TEST(PrimitivePlanner, EveryKernelFitsEveryDevice) {
  std::size_t checked = 0;
  for (const auto& device : devices()) {
    std::set<std::string> seen;
    for (const auto& [tuning_name, t] : tunings(device.info)) {
      for (const KernelSpec& k : all_kernels(device.info, t)) {
        if (!seen.insert(k.key).second) continue;
        std::string problems;
        try {
          problems = misfits(complete(k.source(), device.info), device.info);
        } catch (const Error& e) {
          problems = std::string("  ") + e.what() + "\n";
        }
        ++checked;
        EXPECT_EQ(problems, "") << device.name << ", " << tuning_name << ": kernel '" << k.key
                                << "' does not fit:\n"
                                << problems;
      }
    }
  }
  EXPECT_GT(checked, 1000u);
}

// The reading above sees what it must: a kernel over each limit is caught (so a planner that
// ignored one would be).
TEST(PrimitivePlanner, TheReadingCatchesEachLimit) {
  const DeviceInfo es31 = clamp_to_profile(software_device(), limit_profile("es31-minimum"));
  const auto problems = [&](const std::string& source) {
    return misfits(complete(source, es31), es31);
  };
  EXPECT_EQ(problems("layout(local_size_x = 128) in;\n"
                     "layout(std430, binding = 3) buffer A { float a[]; };\n"
                     "shared float s[4096];\n"
                     "void main() { s[0] = a[0]; a[1] = s[1]; }\n"),
            "");
  EXPECT_NE(problems("layout(local_size_x = 256) in;\nvoid main() {}\n"), "");
  EXPECT_NE(
      problems("#define L 64\nlayout(local_size_x = L, local_size_y = 4) in;\nvoid main() {}\n"),
      "");
  EXPECT_NE(problems("layout(local_size_x = 1) in;\nshared float s[4097];\n"
                     "void main() { s[0] = 1.0; }\n"),
            "");
  const std::string five =
      "layout(local_size_x = 1) in;\n"
      "layout(std430, binding = 0) buffer A { float a[]; };\n"
      "layout(std430, binding = 1) buffer B { float b[]; };\n"
      "layout(std430, binding = 2) buffer C { float c[]; };\n"
      "layout(std430, binding = 3) buffer D { float d[]; };\n"
      "#define E_BINDING 4\n"
      "layout(std430, binding = E_BINDING) buffer E { float e[]; };\n";
  EXPECT_NE(problems(five + "#define LOAD(i) e[i]\nvoid main() { a[0] = b[0] + c[0] + d[0] + "
                            "LOAD(0); }\n"),
            "");  // 5 blocks, the fifth used through a macro at binding 4
  EXPECT_EQ(problems(five + "void main() { a[0] = b[0] + c[0] + d[0]; }\n"), "");  // e unused
  EXPECT_NE(problems("layout(local_size_x = 1) in;\n"
                     "layout(std430, binding = 4) buffer A { float a[]; };\n"
                     "void main() { a[0] = 1.0; }\n"),
            "");  // binding 4 of 4
  EXPECT_THROW(complete("layout(local_size_x = 1) in;\nuniform highp samplerBuffer t;\n"
                        "void main() {}\n",
                        es31),
               UnsupportedError);
}

// Under OpenGL ES 3.1's minimum the adapted variants are the ones chosen: one block fewer
// for the reduction's counter, the scan's narrow tiles, the sort's keys and values apart,
// no buffer textures, and no subgroup kernel that needs more than 4 storage blocks.
TEST(PrimitivePlanner, EsMinimumChoosesTheAdaptedVariants) {
  const ScopedEnv family("GPGPU_PRIMITIVES_SUBGROUPS", nullptr);  // the device defaults
  const DeviceInfo es31 = clamp_to_profile(software_device(), limit_profile("es31-minimum"));
  const PrimitiveTuning t = primitives::effective_tuning(es31, {}, std::nullopt);
  EXPECT_EQ(t.reduce_local, 64);
  EXPECT_LE(t.scan_local, 128);
  const auto keys = [](const std::vector<KernelSpec>& ks) {
    std::string all;
    for (const auto& k : ks) all += k.key + "\n";
    return all;
  };
  EXPECT_NE(
      keys(primitives::reduce_kernels(es31, t, ElementType::Float32, 1, Op::Sum)).find("merged"),
      std::string::npos);
  const auto scan = keys(
      primitives::scan_kernels(es31, t, ElementType::Float32, 1, Op::Sum, ScanAlgorithm::Auto));
  EXPECT_NE(scan.find("narrow"), std::string::npos) << scan;
  EXPECT_EQ(scan.find("texels"), std::string::npos) << scan;
  EXPECT_NE(keys(primitives::sort_kernels(es31, t, ElementType::Uint32, true, 1000))
                .find("sort_down_values"),
            std::string::npos);
  PrimitiveTuning sg;
  sg.subgroups = 1;
  sg.sort_onesweep = 1;
  sg.texel_loads = 0;
  sg.sort_serial = 0;
  sg = primitives::effective_tuning(es31, sg, std::nullopt);
  // The profile hides GL_KHR_shader_subgroup, so the subgroup kernels kept are the emulated
  // ones, at the lockstep width: 8 subgroups of a 64-wide tile keep Onesweep's per-subgroup
  // digit counters within the profile's 16 KiB of shared memory (one per invocation would not).
  const primitives::Subgroups emulated = primitives::subgroups_for(es31, sg.subgroups);
  ASSERT_TRUE(emulated.on);
  EXPECT_FALSE(emulated.native);
  ASSERT_EQ(emulated.size, es31.lockstep_width);
  EXPECT_EQ(
      keys(primitives::scan_kernels(es31, sg, ElementType::Uint32, 1, Op::Sum, ScanAlgorithm::Auto))
          .find("scan_sg"),
      std::string::npos);
  EXPECT_EQ(
      keys(primitives::sort_kernels(es31, sg, ElementType::Uint32, true, 1000)).find("sort_os "),
      std::string::npos);
  EXPECT_NE(
      keys(primitives::sort_kernels(es31, sg, ElementType::Uint32, false, 1000)).find("sort_os "),
      std::string::npos);  // keys only: 4 blocks
}

// Loads through buffer textures only where one holds the whole input: zink on NVIDIA binds
// 4 GiB storage blocks, 2^30 floats, where a buffer texture holds 2^27 texels.
TEST(PrimitivePlanner, TexelLoadsOnlyWhereABufferTextureHoldsTheInput) {
  const DeviceInfo cpu = software_device();
  PrimitiveTuning wants;
  wants.texel_loads = 1;
  const PrimitiveTuning t = primitives::effective_tuning(cpu, wants, std::nullopt);
  ASSERT_EQ(t.texel_loads, 1);
  const auto most = static_cast<std::size_t>(cpu.max_texture_buffer_size);
  for (const std::size_t texels : {std::size_t{0}, std::size_t{1000}, most, most + 1}) {
    SCOPED_TRACE(texels);
    const auto wanted = texels <= most ? primitives::Loads::Texels : primitives::Loads::Storage;
    EXPECT_EQ(primitives::reduce_tuning(cpu, t, texels).loads, wanted);
    EXPECT_EQ(
        primitives::plan_scan(cpu, t, ElementType::Float32, 1, Op::Sum, ScanAlgorithm::Auto, texels)
            .loads,
        wanted);
  }
  EXPECT_TRUE(primitives::plan_sort(cpu, t, ElementType::Uint32, false, most).shape.texels);
  EXPECT_FALSE(primitives::plan_sort(cpu, t, ElementType::Uint32, false, most + 1).shape.texels);
}

// On a device's own figures the planners choose what they chose before device limits were
// read: the GPU's 256-wide groups, the wide tiles, the two-block counter, the subgroup scan.
TEST(PrimitivePlanner, DriverFiguresKeepTheFullVariants) {
  // The device defaults, not the family $GPGPU_PRIMITIVES_SUBGROUPS asks for.
  const ScopedEnv family("GPGPU_PRIMITIVES_SUBGROUPS", nullptr);
  const DeviceInfo gpu = gpu_device(32);
  const PrimitiveTuning t = primitives::effective_tuning(gpu, {}, std::nullopt);
  EXPECT_EQ(t.reduce_local, 256);
  EXPECT_EQ(t.scan_local, 512);
  EXPECT_EQ(t.sort_local, 256);
  EXPECT_EQ(t.scan_scalars, 16);
  // A scan shape stored for the device (store_primitive_tuning) wins over that default.
  PrimitiveTuning stored;
  stored.scan_local = 128;
  stored.scan_scalars = 8;
  const PrimitiveTuning s = primitives::effective_tuning(gpu, {}, stored);
  EXPECT_EQ(s.scan_local, 128);
  EXPECT_EQ(s.scan_scalars, 8);
  // Onesweep sorts on a GPU with subgroups, within its shared memory; asked off, the ranked sort.
  EXPECT_EQ(t.sort_onesweep, 1);
  EXPECT_EQ(t.onesweep_local, 512);
  EXPECT_EQ(t.onesweep_keys, 11);
  const auto onesweep = primitives::plan_sort(gpu, t, ElementType::Uint32, true, 1u << 24);
  EXPECT_TRUE(onesweep.onesweep);
  EXPECT_EQ(onesweep.shape.local, 512);
  EXPECT_EQ(onesweep.shape.keys, 11);
  PrimitiveTuning ranked;
  ranked.sort_onesweep = 0;
  ranked = primitives::effective_tuning(gpu, ranked, std::nullopt);
  EXPECT_FALSE(primitives::plan_sort(gpu, ranked, ElementType::Uint32, true, 1u << 24).onesweep);
  for (const auto& k : all_kernels(gpu, t)) {
    EXPECT_EQ(k.key.find("narrow"), std::string::npos) << k.key;
    EXPECT_EQ(k.key.find("merged"), std::string::npos) << k.key;
    EXPECT_EQ(k.key.find("sort_down_values"), std::string::npos) << k.key;
  }
  const DeviceInfo cpu = software_device();
  const PrimitiveTuning c = primitives::effective_tuning(cpu, {}, std::nullopt);
  EXPECT_EQ(c.scan_local, 64);
  EXPECT_EQ(c.scan_scalars, 16);
  EXPECT_EQ(c.sort_local, 8);
  EXPECT_EQ(c.sort_keys, 4096);
  EXPECT_EQ(c.sort_onesweep, 0);
  EXPECT_EQ(c.onesweep_local, 64);
  EXPECT_EQ(c.onesweep_keys, 16);
  const auto scan =
      primitives::scan_kernels(cpu, c, ElementType::Float32, 1, Op::Sum, ScanAlgorithm::Auto);
  ASSERT_FALSE(scan.empty());
  EXPECT_NE(scan.back().key.find("scan_serial"), std::string::npos);
  EXPECT_NE(scan.back().key.find("texels"), std::string::npos);
}

}  // namespace
}  // namespace gpgpu::test
