// A research probe, not part of the library: times variants of a register-blocked SGEMM
// compute shader at one size, to find what the NVIDIA GLSL compiler turns into fast code.
// Variant: A is pre-transposed (At = A^T, K x M) so that both shared tiles are filled with
// plain vec4 copies (no scattered scalar stores), k-major tiles, double-buffered.
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "harness.hpp"

static const char* kernel_source = R"(
#pragma optionNV(unroll all)
layout(local_size_x = THREADS) in;
layout(std430, binding = 0) readonly buffer MatrixAt { vec4 at[]; };  // K x M
layout(std430, binding = 1) readonly buffer MatrixB { vec4 b[]; };    // K x N
layout(std430, binding = 2) writeonly buffer MatrixC { vec4 c[]; };   // M x N
uniform int M;
uniform int N;
uniform int K;
const int BM4 = BM / 4;
const int BN4 = BN / 4;
const int RM = TM / 4;
const int RN = TN / 4;
const int TXN = BN / TN;
const int A4 = BK * BM4;
const int B4 = BK * BN4;
const int LA = (A4 + THREADS - 1) / THREADS;
const int LB = (B4 + THREADS - 1) / THREADS;
shared vec4 sa[2][BK][BM4 + PAD];
shared vec4 sb[2][BK][BN4 + PAD];
void main() {
  int tid = int(gl_LocalInvocationID.x);
#if WARP_MAP
  // Each warp covers a 4 x 8 patch of the thread grid: its shared reads touch 4 distinct A
  // vec4s and 8 distinct B vec4s (one wavefront each) instead of 2 and 16.
  int lane = tid & 31;
  int warp = tid >> 5;
  const int WARPS_X = TXN / 8;
  int tx = (warp % WARPS_X) * 8 + (lane & 7);
  int ty = (warp / WARPS_X) * 4 + (lane >> 3);
#else
  int tx = tid % TXN;
  int ty = tid / TXN;
#endif
#if GROUP_M > 1
  // Blocks in column-major groups of GROUP_M block rows, so that concurrently running
  // blocks share tiles of A and B in L2.
  int blocks_n = N / BN;
  int id = int(gl_WorkGroupID.y) * blocks_n + int(gl_WorkGroupID.x);
  int per_group = GROUP_M * blocks_n;
  int group = id / per_group;
  int first_m = group * GROUP_M;
  int rows_here = min(M / BM - first_m, GROUP_M);
  int bmi = first_m + (id % per_group) % rows_here;
  int bni = (id % per_group) / rows_here;
  int m0 = bmi * BM;
  int n0 = bni * BN;
#else
  int m0 = int(gl_WorkGroupID.y) * BM;
  int n0 = int(gl_WorkGroupID.x) * BN;
#endif
  int M4 = M / 4;
  int N4 = N / 4;
  vec4 acc[TM * RN];
  for (int i = 0; i < TM * RN; ++i) acc[i] = vec4(0.0);
  vec4 ra[LA];
  vec4 rb[LB];
  for (int l = 0; l < LA; ++l) {
    int v = tid + l * THREADS;
    if (v < A4) ra[l] = at[(v / BM4) * M4 + m0 / 4 + v % BM4];
  }
  for (int l = 0; l < LB; ++l) {
    int v = tid + l * THREADS;
    if (v < B4) rb[l] = b[(v / BN4) * N4 + n0 / 4 + v % BN4];
  }
  for (int l = 0; l < LA; ++l) { int v = tid + l * THREADS; if (v < A4) sa[0][v / BM4][v % BM4] = ra[l]; }
  for (int l = 0; l < LB; ++l) { int v = tid + l * THREADS; if (v < B4) sb[0][v / BN4][v % BN4] = rb[l]; }
  barrier();
  int tiles = K / BK;
  for (int t = 0; t < tiles; ++t) {
    int cur = t & 1;
    bool more = t + 1 < tiles;
    if (more) {
      int k0 = (t + 1) * BK;
      for (int l = 0; l < LA; ++l) {
        int v = tid + l * THREADS;
        if (v < A4) ra[l] = at[(k0 + v / BM4) * M4 + m0 / 4 + v % BM4];
      }
      for (int l = 0; l < LB; ++l) {
        int v = tid + l * THREADS;
        if (v < B4) rb[l] = b[(k0 + v / BN4) * N4 + n0 / 4 + v % BN4];
      }
    }
    for (int k = 0; k < BK; ++k) {
      vec4 av[RM];
      vec4 bv[RN];
      for (int i = 0; i < RM; ++i) av[i] = sa[cur][k][ty + i * (BM4 / RM)];
      for (int j = 0; j < RN; ++j) bv[j] = sb[cur][k][tx + j * (BN4 / RN)];
      for (int i = 0; i < RM; ++i)
        for (int r = 0; r < 4; ++r)
          for (int j = 0; j < RN; ++j) acc[(i * 4 + r) * RN + j] = fma(vec4(av[i][r]), bv[j], acc[(i * 4 + r) * RN + j]);
    }
    if (more) {
      for (int l = 0; l < LA; ++l) { int v = tid + l * THREADS; if (v < A4) sa[cur ^ 1][v / BM4][v % BM4] = ra[l]; }
      for (int l = 0; l < LB; ++l) { int v = tid + l * THREADS; if (v < B4) sb[cur ^ 1][v / BN4][v % BN4] = rb[l]; }
    }
    barrier();
  }
  for (int i = 0; i < RM; ++i)
    for (int r = 0; r < 4; ++r) {
      int row = m0 + (ty + i * (BM4 / RM)) * 4 + r;
      for (int j = 0; j < RN; ++j) c[row * N4 + n0 / 4 + tx + j * (BN4 / RN)] = acc[(i * 4 + r) * RN + j];
    }
}
)";

struct Variant {
  int bm, bn, bk, tm, tn, pad, warp_map = 0, group_m = 1;
};

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  const std::size_t count = std::size_t(n) * n;
  gpgpu::Context ctx;
  std::printf("device: %s, n = %d\n", ctx.info().renderer.c_str(), n);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> a(count), b(count), at(count);
  for (auto& x : a) x = dist(rng);
  for (auto& x : b) x = dist(rng);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) at[size_t(k) * n + i] = a[size_t(i) * n + k];
  auto bat = gpgpu::Buffer::from(ctx, at);
  auto bb = gpgpu::Buffer::from(ctx, b);
  gpgpu::Buffer bc(ctx, gpgpu::ElementType::Float32, count);
  const Variant variants[] = {
      {128, 128, 8, 8, 8, 0, 0, 1}, {128, 128, 8, 8, 8, 0, 1, 1}, {128, 128, 8, 8, 8, 0, 0, 8},
      {128, 128, 8, 8, 8, 0, 1, 8}, {128, 128, 8, 8, 8, 0, 1, 4}, {128, 128, 8, 8, 8, 0, 1, 16},
      {128, 64, 8, 8, 4, 0, 1, 8},  {64, 128, 8, 4, 8, 0, 1, 8},  {128, 128, 16, 8, 8, 0, 1, 8},
  };

  for (const auto& v : variants) {
    const int threads = (v.bm / v.tm) * (v.bn / v.tn);
    if (threads > 1024) {
      std::printf("%3dx%3dx%2d %dx%d pad%d: skipped (loads do not divide)\n", v.bm, v.bn, v.bk,
                  v.tm, v.tn, v.pad);
      continue;
    }
    try {
      gpgpu::Defines defines;
      const int values[] = {v.bm, v.bn, v.bk, v.tm, v.tn, v.pad, threads, v.warp_map, v.group_m};
      for (int i = 0; const char* name :
                      {"BM", "BN", "BK", "TM", "TN", "PAD", "THREADS", "WARP_MAP", "GROUP_M"})
        defines.emplace_back(name, std::to_string(values[i++]));
      gpgpu::ComputeKernel k(ctx, kernel_source, defines);
      gpgpu::Args args{{"at", bat}, {"b", bb}, {"c", bc}, {"M", n}, {"N", n}, {"K", n}};
      gpgpu::Size3 groups{size_t(n / v.bn), size_t(n / v.bm), 1};  // GROUP_M remaps the ids
      k.set_timing(true);
      // The median of 7 runs by GL_TIME_ELAPSED, after one untimed.
      const double ms = gpgpu::bench::median(gpgpu::bench::sample({1, 7}, [&] {
        k.run_groups(args, groups);
        return k.last_gpu_ns() / 1e6;
      }));
      // Spot check 64 entries against a double-precision dot product.
      std::vector<float> row(n);
      double worst = 0;
      for (int s = 0; s < 64; ++s) {
        int i = int(rng() % n), j = int(rng() % n);
        bc.download(std::span<float>(row), size_t(i) * n);
        double ref = 0, mag = 0;
        for (int q = 0; q < n; ++q) {
          ref += double(a[size_t(i) * n + q]) * b[size_t(q) * n + j];
          mag += std::abs(double(a[size_t(i) * n + q]) * b[size_t(q) * n + j]);
        }
        worst = std::max(worst, std::abs(row[j] - ref) / (mag * 5.96e-8));
      }
      std::printf("warp_map %d group_m %2d ", v.warp_map, v.group_m);
      std::printf(
          "%3dx%3dx%2d %dx%d pad%d threads %4d: %8.3f ms  %8.0f GFLOPS  err %.1f eps*sum (bound "
          "%d)\n",
          v.bm, v.bn, v.bk, v.tm, v.tn, v.pad, threads, ms, 2.0 * n * n * double(n) / (ms * 1e6),
          worst, n + 2);
    } catch (const std::exception& e) {
      std::printf("%3dx%3dx%2d %dx%d: failed: %.300s\n", v.bm, v.bn, v.bk, v.tm, v.tn, e.what());
    }
  }
}
