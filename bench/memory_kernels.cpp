// The memory benchmarks inside the device (memory_runner.hpp): element-wise bandwidth,
// transpose, particle layouts (SoA vs AoS) and work-group sizes.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/transfer_queue.hpp"
#include "gpgpu/transpose.hpp"
#include "gpgpu/work_group.hpp"
#include "memory_runner.hpp"
#include "particles.hpp"

namespace gpgpu::bench {

namespace {

// OP 0 copy, 1 scale, 2 SAXPY. Invocation t handles elements t, t + T, t + 2T... (T = the
// invocations dispatched), so at every step neighbours touch neighbours: PER_THREAD
// elements each, or, with GRID_STRIDE, as many as it takes.
constexpr const char* elementwise_source = R"(
layout(local_size_x = LOCAL) in;
// RESTRICT: no other binding aliases these arrays, so the compiler may keep x in the
// read-only cache path and reorder loads.
layout(std430, binding = 0) RESTRICT readonly buffer X { T x[]; };
#if OP == 2
layout(std430, binding = 1) RESTRICT buffer Y { T y[]; };
#else
layout(std430, binding = 1) RESTRICT writeonly buffer Y { T y[]; };
#endif
#if OP != 0
uniform float alpha;
#endif
uniform uint n;
void apply(uint i) {
#if OP == 0
  y[i] = x[i];
#elif OP == 1
  y[i] = alpha * x[i];
#else
  y[i] = alpha * x[i] + y[i];
#endif
}
void main() {
  uint t = gpgpu_index();
  uint stride = gpgpu_count;
  // The last work group may hold invocations past the count: their t + k * stride would
  // repeat another invocation's elements (SAXPY twice).
  if (t >= stride) return;
#if GRID_STRIDE
  for (uint i = t; i < n; i += stride) apply(i);
#else
  for (uint k = 0u; k < uint(PER_THREAD); ++k) {
    uint i = t + k * stride;
    if (i < n) apply(i);
  }
#endif
})";

struct Variant {
  int op;  // 0 copy, 1 scale, 2 SAXPY
  bool vec4;
  int per_thread;  // 0: grid-stride loop
  bool restrict_qualified = true;
};

const char* op_name(int op) {
  return op == 0 ? "copy" : op == 1 ? "scale" : "SAXPY";
}

}  // namespace

void run_bandwidth_bench(MemoryEnv& env) {
  auto& ctx = env.context;
  const std::size_t n = env.o.bandwidth_floats;
  const double array_bytes = 4.0 * static_cast<double>(n);
  env.log << fmt::format("bandwidth: {} floats ({} MiB per array) ...\n", n, n * 4 >> 20);
  std::vector<float> xs(n), y0(n, 1.0f);
  for (std::size_t i = 0; i < n; ++i) xs[i] = static_cast<float>(i % 1000) * 0.001f;
  Buffer x = Buffer::from(ctx, xs);
  Buffer y_init = Buffer::from(ctx, y0);
  Buffer y(ctx, ElementType::Float32, n);
  TransferQueue queue(ctx);

  const double gl_copy = env.gl_copy_gbps(x, y);
  const double cuda_copy = env.cuda_device_copy_gbps(n * 4);
  const int local = preferred_work_group_size(ctx);
  // Enough invocations for any current GPU, fewer than elements: each loops.
  const std::size_t grid_invocations = std::min<std::size_t>(n / 4, std::size_t{1} << 20);

  Table table(
      "bandwidth",
      fmt::format("element-wise kernels over {} floats ({} MiB per array), work group {}", n,
                  n * 4 >> 20, local),
      {"kernel", "storage", "per invocation", "median ms", "GB/s", "vs GL copy", "vs CUDA copy"});
  table.add({"device copy: TransferQueue::copy", "-", "-", Cell::missing(), Cell(gl_copy),
             ratio(1.0, 1.0), ratio(gl_copy, cuda_copy)});
  if (cuda_copy > 0) {
    table.add({"device copy: CUDA cudaMemcpy", "-", "-", Cell::missing(), Cell(cuda_copy),
               ratio(cuda_copy, gl_copy), ratio(1.0, 1.0)});
  }
  const float alpha = 0.5f;
  std::vector<float> result(n);
  for (const int op : {0, 1, 2}) {
    std::vector<Variant> variants{{op, false, 1}, {op, true, 1}, {op, true, 2},
                                  {op, true, 4},  {op, true, 8}, {op, true, 0}};
    if (op == 0) variants.push_back({op, true, 4, false});  // what restrict is worth
    for (const Variant& v : variants) {
      const std::size_t elements = v.vec4 ? n / 4 : n;
      const std::size_t invocations =
          v.per_thread == 0 ? std::min(elements, grid_invocations)
                            : (elements + static_cast<std::size_t>(v.per_thread) - 1) /
                                  static_cast<std::size_t>(v.per_thread);
      ComputeKernel kernel(ctx, elementwise_source,
                           {{"T", v.vec4 ? "vec4" : "float"},
                            {"OP", std::to_string(v.op)},
                            {"PER_THREAD", std::to_string(std::max(v.per_thread, 1))},
                            {"GRID_STRIDE", v.per_thread == 0 ? "1" : "0"},
                            {"RESTRICT", v.restrict_qualified ? "restrict" : ""},
                            {"LOCAL", std::to_string(local)}},
                           fmt::format("bench {}", op_name(op)));
      Args args{{"x", x}, {"y", y}, {"n", static_cast<std::uint32_t>(elements)}};
      if (op != 0) args.emplace_back("alpha", alpha);
      const Timing t = env.profile([&] { kernel.run(args, invocations); });
      // Check one fresh run: every 97th element.
      queue.copy(y_init, y).wait();
      kernel.run(args, invocations);
      y.download(std::span<float>(result));
      for (std::size_t i = 0; i < n; i += 97) {
        const float expect = op == 0 ? xs[i] : op == 1 ? alpha * xs[i] : alpha * xs[i] + 1.0f;
        if (std::abs(result[i] - expect) > 1e-6f * (1.0f + std::abs(expect))) {
          throw Error(fmt::format("bench bandwidth: {} gave y[{}] = {}, expected {}", op_name(op),
                                  i, result[i], expect));
        }
      }
      const double bytes = array_bytes * (op == 2 ? 3.0 : 2.0);
      const double g = gbps(bytes, t.kernel_ms());
      table.add(
          {op_name(op), v.vec4 ? "vec4" : "float",
           (v.per_thread == 0 ? fmt::format("grid-stride ({} invocations)", invocations)
                              : fmt::format("{} {}", v.per_thread, v.vec4 ? "vec4" : "float")) +
               (v.restrict_qualified ? "" : ", no restrict"),
           Cell(t.kernel_ms(), 3), Cell(g), ratio(g, gl_copy), ratio(g, cuda_copy)});
    }
  }
  table.note("storage blocks are declared restrict unless the row says otherwise");
  table.note(
      "GB/s counts every byte read and written once (copy and scale 8 bytes a float, "
      "SAXPY 12); device copies count read + write as well");
  table.note("CUDA reference: " + env.cuda.status);
  env.finish(table);
}

void run_transpose_bench(MemoryEnv& env) {
  auto& ctx = env.context;
  const std::size_t n = env.o.transpose_n;
  struct Shape {
    std::size_t rows, cols;
  };
  const Shape shapes[] = {{n, n}, {n, n / 4}, {n / 4, n}, {n - 1, n + 1}};
  Table table("transpose", "matrix transpose (float32); GB/s counts the read and the write",
              {"matrix", "method", "median ms", "GB/s", "vs GL copy", "vs naive"});
  for (const Shape s : shapes) {
    const std::size_t count = s.rows * s.cols;
    env.log << fmt::format("transpose: {} x {} ...\n", s.rows, s.cols);
    std::vector<float> host(count);
    for (std::size_t i = 0; i < count; ++i) host[i] = static_cast<float>(i % 100000);
    Buffer in = Buffer::from(ctx, host);
    Buffer out(ctx, ElementType::Float32, count);
    const double copy = env.gl_copy_gbps(in, out);
    const std::string shape = fmt::format("{} x {}", s.rows, s.cols);
    table.add({shape, "device copy (TransferQueue::copy)", Cell::missing(), Cell(copy),
               ratio(1.0, 1.0), Cell::missing()});
    double naive = 0;
    std::vector<float> result(count);
    for (const auto method :
         {TransposeMethod::Naive, TransposeMethod::Tiled, TransposeMethod::TiledPadded}) {
      const Timing t = env.profile([&] { transpose(ctx, in, out, s.rows, s.cols, method); });
      out.download(std::span<float>(result));
      for (std::size_t i = 0; i < count; i += 101) {
        const std::size_t r = i % s.rows, c = i / s.rows;  // result is cols x rows
        if (result[i] != host[r * s.cols + c]) {
          throw Error(fmt::format("bench transpose: {} is wrong at {}", to_string(method), i));
        }
      }
      const double g = gbps(2.0 * 4.0 * static_cast<double>(count), t.kernel_ms());
      if (method == TransposeMethod::Naive) naive = g;
      table.add({shape, to_string(method), Cell(t.kernel_ms(), 3), Cell(g), ratio(g, copy),
                 ratio(g, naive)});
    }
  }
  table.note(
      "naive: coalesced reads, strided writes; tiled: 32 x 32 tiles in shared memory, "
      "32 x 8 invocations a group; padded: tile rows 33 wide against bank conflicts");
  env.finish(table);
}

namespace {

// A step on the device must agree with the CPU before its time means anything.
void check_step(const Particles& device, const Particles& cpu, ParticleLayout layout) {
  for (std::size_t i = 0; i < cpu.size(); i += 61) {
    for (const auto& [d, c] : {std::pair{&device.px, &cpu.px}, std::pair{&device.vy, &cpu.vy}}) {
      if (std::abs((*d)[i] - (*c)[i]) > 1e-4f * (1.0f + std::abs((*c)[i]))) {
        throw Error(fmt::format("bench soa: {} differs from the CPU at particle {}: {} vs {}",
                                to_string(layout), i, (*d)[i], (*c)[i]));
      }
    }
  }
}

}  // namespace

void run_soa_bench(MemoryEnv& env) {
  auto& ctx = env.context;
  const std::size_t n = env.o.particles;
  env.log << fmt::format("soa: {} particles ...\n", n);
  std::mt19937 rng(12345);
  const Particles host = random_particles(n, rng);
  const ParticleParams params;
  Particles expected = host;
  cpu_step(expected, params);
  const int local = preferred_work_group_size(ctx);

  Table table("soa",
              fmt::format("particle update, {} particles, work group {}; GB/s of the bytes "
                          "the update needs (step 56, drift 36 a particle)",
                          n, local),
              {"kernel", "layout", "bytes/particle", "median ms", "GB/s", "vs AoS"});
  double aos_step = 0, aos_drift = 0;
  for (const auto layout : {ParticleLayout::AoS, ParticleLayout::SoA, ParticleLayout::SoAVec4}) {
    try {
      DeviceParticles check(ctx, layout, host, local);
      check.step(params);
      check_step(check.download(), expected, layout);
    } catch (const DeviceLimitError& e) {
      // A device (or profile) with fewer storage buffers than the layout binds: the table
      // says which limit, and the other layouts are still measured.
      table.add({"step and drift", to_string(layout), "-", "refused", e.limit(), "-"});
      continue;
    }
    DeviceParticles device(ctx, layout, host, local);
    const Timing step = env.profile([&] { device.step(params); });
    const Timing drift = env.profile([&] { device.drift(params); });
    const double step_g = gbps(static_cast<double>(n * step_useful_bytes), step.kernel_ms());
    const double drift_g = gbps(static_cast<double>(n * drift_useful_bytes), drift.kernel_ms());
    if (layout == ParticleLayout::AoS) {
      aos_step = step_g;
      aos_drift = drift_g;
    }
    table.add({"step (forces)", to_string(layout), device.bytes_per_particle(),
               Cell(step.kernel_ms(), 3), Cell(step_g), ratio(step_g, aos_step)});
    table.add({"drift (pos += vel dt)", to_string(layout), device.bytes_per_particle(),
               Cell(drift.kernel_ms(), 3), Cell(drift_g), ratio(drift_g, aos_drift)});
  }
  table.note(
      "AoS carries a vec4 colour the update never touches; it still shares the cache "
      "lines, so AoS moves more bytes for the same work");
  env.finish(table);
}

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
