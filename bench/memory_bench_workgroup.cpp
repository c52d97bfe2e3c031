// workgroup: one memory-bound kernel and the tiled transpose across work-group sizes.
#include <vector>

#include <fmt/format.h>

#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/transpose.hpp"
#include "gpgpu/work_group.hpp"
#include "memory_bench.hpp"

namespace gpgpu::bench {

namespace {

constexpr const char* saxpy_vec4 = R"(
layout(local_size_x = LOCAL) in;
layout(std430, binding = 0) readonly buffer X { vec4 x[]; };
layout(std430, binding = 1) buffer Y { vec4 y[]; };
uniform float alpha;
void main() {
  uint i = gpgpu_index();
  if (i < gpgpu_count) y[i] = alpha * x[i] + y[i];
})";

}  // namespace

void run_workgroup_bench(MemoryEnv& env) {
  auto& ctx = env.context;
  const std::size_t n = env.o.bandwidth_floats;
  const std::size_t t = env.o.transpose_n;
  env.log << fmt::format("workgroup: SAXPY over {} floats, transpose {} x {} ...\n", n, t, t);
  Buffer x = Buffer::from(ctx, std::vector<float>(n, 0.5f));
  Buffer y = Buffer::from(ctx, std::vector<float>(n, 1.0f));
  Buffer in = Buffer::from(ctx, std::vector<float>(t * t, 2.0f));
  Buffer out(ctx, ElementType::Float32, t * t);

  Table table("workgroup",
              fmt::format("work-group sizes: vec4 SAXPY over {} floats, 32 x k tiled "
                          "transpose (padded) of {} x {}",
                          n, t, t),
              {"kernel", "work group", "median ms", "GB/s", "vs best"});
  struct Row {
    std::string kernel, group;
    double ms, gbps;
  };
  std::vector<Row> saxpy_rows, transpose_rows;
  for (const int size : work_group_size_candidates(ctx.info())) {
    ComputeKernel kernel(ctx, saxpy_vec4, {{"LOCAL", std::to_string(size)}}, "bench saxpy");
    const Args args{{"x", x}, {"y", y}, {"alpha", 0.25f}};
    const Timing time = env.profile([&] { kernel.run(args, n / 4); });
    saxpy_rows.push_back({"SAXPY vec4", std::to_string(size), time.kernel_ms(),
                          gbps(12.0 * static_cast<double>(n), time.kernel_ms())});
  }
  for (const int rows : {1, 2, 4, 8, 16, 32}) {
    if (32 * rows > ctx.info().max_compute_work_group_invocations) break;
    ComputeKernel kernel(
        ctx, transpose_kernel_source(TransposeMethod::TiledPadded, ElementType::Float32, 32, rows),
        {}, "bench transpose");
    const auto side = static_cast<std::uint32_t>(t);
    const Args args{{"src", in}, {"dst", out}, {"rows", side}, {"cols", side}};
    const Timing time = env.profile([&] {
      kernel.run_groups(args, Size3{(t + 31) / 32, (t + 31) / 32, 1});
    });
    transpose_rows.push_back({"transpose tiled-padded",
                              fmt::format("32 x {} = {}", rows, 32 * rows), time.kernel_ms(),
                              gbps(8.0 * static_cast<double>(t * t), time.kernel_ms())});
  }
  for (const auto* rows : {&saxpy_rows, &transpose_rows}) {
    double best = 0;
    for (const auto& r : *rows) best = std::max(best, r.gbps);
    for (const auto& r : *rows) {
      table.add({r.kernel, r.group, Cell(r.ms, 3), Cell(r.gbps), ratio(r.gbps, best)});
    }
  }
  WorkGroupOptions choose;
  choose.use_cache = false;
  const auto choice = choose_work_group_size(ctx, choose);
  table.note(fmt::format("gpgpu::preferred_work_group_size on this device: {} ({})", choice.size,
                         choice.reason));
  env.finish(table);
}

}  // namespace gpgpu::bench
