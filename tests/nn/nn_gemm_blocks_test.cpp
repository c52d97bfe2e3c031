// Every block shape of the compute backend's shared-memory GEMM kernels, forced through
// GPGPU_NN_BLOCKS, against the float64 reference: the heuristic and the tuner pick few of
// them on llvmpipe, but a GPU may tune to any. Blocks of 8 rows per invocation keep one set
// of a convolution's row parts for all their loads (gemm.cpp, A_ROW_SETS) where A is not
// k-fast (the forward and input-gradient GEMMs), and one per load where it is (the weight
// gradient); blocks wider than the matrix leave tiles mostly empty.
#include <string>

#include <fmt/format.h>

#include "cache_support.hpp"
#include "gemm.hpp"
#include "nn_test_support.hpp"

namespace {

namespace nn = gpgpu::nn;
using gpgpu::test::ScopedEnv;
using nntest::LayerCase;

std::vector<LayerCase> cases() {
  using namespace nn;
  return {
      {"conv3x3_pad1_relu", {2, 7, 9}, {Conv2D{5, 3, 1, 1}, ReLU{}}, 3},
      {"conv5x5_pad2_stride2", {3, 11, 10}, {Conv2D{4, 5, 2, 2}}, 2},
      {"conv_long_k", {1, 18, 18}, {Conv2D{3, 3, 1, 0}, ReLU{}}, 8},
      {"conv5x5_many_channels", {9, 6, 7}, {Conv2D{10, 5, 1, 2}, Tanh{}}, 3},
      {"dense_wide_split_k", {300}, {Dense{70}}, 37},
  };
}

TEST(NnGemmBlocks, EveryBlockShapeMatchesTheFloat64Reference) {
  const auto config = nntest::all_backends().at(1);  // compute, shared-memory kernels
  ASSERT_EQ(config.options.kernels, nn::BackendOptions::Kernels::SharedMemory);
  const auto& info = gpgpu::test::context().info();
  // {bm, bn, tm, tn}: the 8-row blocks the tuner puts after the 4-row ones for
  // convolutions, two 4-row ones, and one 8 columns wide per invocation.
  const int blocks[][4] = {{128, 64, 8, 8}, {64, 64, 8, 4},  {128, 32, 8, 4},
                           {256, 32, 8, 4}, {128, 64, 4, 8}, {32, 32, 4, 4}};
  int checked = 0;
  for (const auto& b : blocks) {
    const std::string name = fmt::format("{},{},{},{}", b[0], b[1], b[2], b[3]);
    SCOPED_TRACE("GPGPU_NN_BLOCKS=" + name);
    nn::detail::GemmTiling want;
    want.bm = b[0], want.bn = b[1], want.tm = b[2], want.tn = b[3];
    const auto fitted = nn::detail::fitted_tiling(info, {189, 5, 18}, want);
    ScopedEnv env("GPGPU_NN_BLOCKS", name.c_str());
    const auto forced = nn::detail::forced_blocks(info, {189, 5, 18}, true);
    if (!fitted) {
      // Over this device's work group or shared memory (a device-limit profile such as
      // es31-minimum): the GEMMs keep their own tilings.
      EXPECT_FALSE(forced.has_value());
      continue;
    }
    // The block is one the kernels take, so the GEMMs below run it rather than their own.
    ASSERT_TRUE(forced.has_value());
    ASSERT_EQ(forced->to_string(), fitted->to_string());
    ++checked;
    for (const auto& c : cases()) nntest::check_case(c, config);
  }
  // OpenGL ES 3.1's minimum (128 invocations, 16 KiB) still fits four of the six.
  EXPECT_GE(checked, 4);
}

TEST(NnGemmBlocks, AMalformedBlockIsRefused) {
  ScopedEnv env("GPGPU_NN_BLOCKS", "64x64");
  EXPECT_THROW(nn::detail::forced_blocks(gpgpu::test::context().info(), {64, 64, 64}, true),
               gpgpu::ArgumentError);
}

}  // namespace
