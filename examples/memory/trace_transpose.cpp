// trace_transpose — draws the memory access patterns of the naive and the tiled transpose
// (docs/memory/ shows the result): which invocation reads which element of `src` and writes
// which element of `dst`, and how many 32-byte sectors each warp request touches.
//
//   trace_transpose [OUT_DIR] [ROWS] [COLS]      (default: . 64 64)
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/trace.hpp"
#include "gpgpu/transpose.hpp"

int main(int argc, char** argv) try {
  const std::filesystem::path out_dir = argc > 1 ? argv[1] : ".";
  const std::size_t rows = argc > 2 ? std::stoul(argv[2]) : 64;
  const std::size_t cols = argc > 3 ? std::stoul(argv[3]) : 64;
  std::filesystem::create_directories(out_dir);
  gpgpu::Context ctx;
  std::vector<float> in(rows * cols), out(rows * cols);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);

  for (const auto method : {gpgpu::TransposeMethod::Naive, gpgpu::TransposeMethod::TiledPadded}) {
    const std::string name = gpgpu::to_string(method);
    for (const char* array : {"src", "dst"}) {
      gpgpu::TracedKernel traced(ctx, gpgpu::transpose_kernel_source(method),
                                 gpgpu::TraceOptions{.buffer = array});
      const gpgpu::Args args{{"src", in},
                             {"dst", gpgpu::out(out)},
                             {"rows", static_cast<std::uint32_t>(rows)},
                             {"cols", static_cast<std::uint32_t>(cols)}};
      const auto trace =
          method == gpgpu::TransposeMethod::Naive
              ? traced.run(args, gpgpu::Size3{cols, rows, 1})
              : traced.run_groups(args, gpgpu::Size3{(cols + 31) / 32, (rows + 31) / 32, 1});
      std::cout << name << " transpose, " << array << ":\n" << trace.summary() << "\n";
      gpgpu::AccessPictureOptions picture;
      picture.title = name + " transpose of a " + std::to_string(rows) + "x" +
                      std::to_string(cols) + " matrix, first two work groups";
      picture.invocation_count = 2 * trace.group_size;
      const auto path = out_dir / ("trace-" + name + "-" + array + ".png");
      gpgpu::write_access_png(trace, path, picture);
      std::cout << "wrote " << path.string() << "\n\n";
    }
  }
  return 0;
} catch (const gpgpu::Error& e) {
  std::cerr << "trace_transpose: " << e.what() << "\n";
  return 1;
}
