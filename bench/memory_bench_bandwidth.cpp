// bandwidth: element-wise kernels against the device-copy bandwidth.
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/transfer_queue.hpp"
#include "gpgpu/work_group.hpp"
#include "memory_bench.hpp"

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

}  // namespace gpgpu::bench
