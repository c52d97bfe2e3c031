// The native (GL_KHR_shader_subgroup) form of every subgroup kernel, completed as
// ComputeKernel completes it, compiled by glslangValidator (GLSL ES 3.20): the form a GPU
// compiles, which llvmpipe (no subgroups: it runs the emulated form) never sees. Each
// kernel variant the primitives can build is checked: element types, operators, components,
// with and without values.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "command.hpp"
#include "ops/primitives/compaction_glsl.hpp"
#include "ops/primitives/radix_sort_glsl.hpp"
#include "ops/primitives/reduce_glsl.hpp"
#include "ops/primitives/scan_glsl.hpp"
#include "shader/glsl_source.hpp"

namespace gpgpu::test {
namespace {

using primitives::Subgroups;

constexpr ElementType types[] = {ElementType::Float32, ElementType::Int32, ElementType::Uint32};
constexpr Op ops[] = {Op::Sum, Op::Product, Op::Min, Op::Max};

// What the H100 reports: GLES 3.2, subgroups of 32 in compute shaders.
DeviceInfo gpu_like() {
  DeviceInfo info;
  info.gl_major = 3;
  info.gl_minor = 2;
  return info;
}

Subgroups native(int size) {
  return {true, true, size};
}

// Compiles `source` as a complete compute shader; the log on failure.
::testing::AssertionResult compiles(const std::string& name, const std::string& source) {
  const std::string full =
      detail::complete_source(source, GL_COMPUTE_SHADER, gpu_like(), {},
                              "uniform uint gpgpu_count;\nuniform uint gpgpu_row_stride;\n"
                              "uint gpgpu_index() { return gl_GlobalInvocationID.x; }\n");
  const auto dir = std::filesystem::temp_directory_path();
  const auto file = dir / ("gpgpu_sg_" + std::to_string(::getpid()) + ".comp");
  std::ofstream(file) << full;
  const CommandResult r = run_command(GPGPU_GLSLANG_VALIDATOR, file.string(),
                                      dir / ("gpgpu_sg_log_" + std::to_string(::getpid())));
  std::filesystem::remove(file);
  if (r.status == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << name << ":\n" << r.output;
}

TEST(SubgroupGlsl, Reduce) {
  for (int size : {32, 64}) {
    for (ElementType type : types) {
      for (Op op : ops) {
        for (int components : {1, 2, 4}) {
          primitives::ReduceTuning t;
          t.subgroup_size = size;
          EXPECT_TRUE(compiles("reduce", primitives::reduce_vec4_source(type, components, op, t,
                                                                        native(size), true)));
        }
      }
    }
  }
}

TEST(SubgroupGlsl, Scan) {
  for (ElementType type : types) {
    for (Op op : ops) {
      for (int vec4s : {4, 8}) {
        EXPECT_TRUE(
            compiles("scan", primitives::scan_subgroup_source(type, op, 256, vec4s, native(32),
                                                              primitives::Loads::Storage)));
      }
    }
  }
  EXPECT_TRUE(compiles("scan 1024 / 32",
                       primitives::scan_subgroup_source(ElementType::Float32, Op::Sum, 1024, 8,
                                                        native(32), primitives::Loads::Storage)));
}

TEST(SubgroupGlsl, Sort) {
  for (ElementType type : types) {
    EXPECT_TRUE(compiles("onesweep histogram", primitives::onesweep_histogram_source(type, 256)));
    for (bool values : {false, true}) {
      primitives::SortShape shape;
      shape.local = 256;
      shape.keys = 16;
      EXPECT_TRUE(compiles("onesweep pass",
                           primitives::onesweep_pass_source(type, values, shape, native(32))));
    }
  }
}

TEST(SubgroupGlsl, Compaction) {
  for (ElementType type : types) {
    for (int components : {1, 3}) {
      for (auto kind : {primitives::CompactKind::CopyIf, primitives::CompactKind::Partition,
                        primitives::CompactKind::Unique}) {
        EXPECT_TRUE(compiles("compaction", primitives::compaction_subgroup_source(
                                               type, components, kind, "x == x", 256, 4, native(32),
                                               primitives::Loads::Storage)));
      }
    }
  }
}

}  // namespace
}  // namespace gpgpu::test
