// transpose: naive vs shared-memory tiles, with and without padding, square and not.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "gpgpu/transpose.hpp"
#include "memory_bench.hpp"

namespace gpgpu::bench {

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

}  // namespace gpgpu::bench
