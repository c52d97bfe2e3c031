// overlap_pipeline — stream a large array through a kernel in chunks, with uploads,
// dispatches and downloads in flight together (gpgpu::TransferQueue), and profile it.
//
//   overlap_pipeline [MiB] [chunks]      (default: 64 8)
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/profiler.hpp"
#include "gpgpu/transfer_queue.hpp"

int main(int argc, char** argv) try {
  const std::size_t mib = argc > 1 ? std::stoul(argv[1]) : 64;
  const std::size_t chunks = argc > 2 ? std::stoul(argv[2]) : 8;
  const std::size_t n = mib * (std::size_t{1} << 20) / 4 / chunks;  // floats per chunk
  gpgpu::Context ctx;
  gpgpu::ComputeKernel polynomial(ctx, R"(
    layout(local_size_x = 128) in;
    layout(std430, binding = 0) readonly buffer X { float x[]; };
    layout(std430, binding = 1) writeonly buffer Y { float y[]; };
    void main() {
      uint i = gpgpu_index();
      if (i < gpgpu_count) { float v = x[i]; y[i] = (2.0 * v - 3.0) * v + 1.0; }
    })",
                                  {}, "polynomial");
  std::vector<float> in(n * chunks), out(n * chunks, 0.0f);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 1000) / 1000.0f;

  // Two buffer pairs: while the GPU works on chunk c in one pair, chunk c + 1 is uploaded
  // into the other. GL keeps the order, so no wait is needed between the steps.
  gpgpu::Buffer x[2] = {gpgpu::Buffer(ctx, gpgpu::ElementType::Float32, n),
                        gpgpu::Buffer(ctx, gpgpu::ElementType::Float32, n)};
  gpgpu::Buffer y[2] = {gpgpu::Buffer(ctx, gpgpu::ElementType::Float32, n),
                        gpgpu::Buffer(ctx, gpgpu::ElementType::Float32, n)};
  gpgpu::TransferQueue queue(ctx);
  gpgpu::Profiler profiler(ctx);
  for (int round = 0; round < 3; ++round) {
    auto whole = profiler.scope("pipeline (upload + run + download)");
    std::vector<gpgpu::PendingTransfer> downloads;
    for (std::size_t c = 0; c < chunks; ++c) {
      queue.upload(x[c % 2], std::span<const float>(in.data() + c * n, n));
      polynomial.run({{"x", x[c % 2]}, {"y", y[c % 2]}});
      downloads.push_back(queue.download(y[c % 2], std::span<float>(out.data() + c * n, n)));
    }
    for (auto& d : downloads) d.wait();
  }
  for (std::size_t i = 0; i < out.size(); i += 1009) {
    const float v = in[i], expected = (2.0f * v - 3.0f) * v + 1.0f;
    if (std::abs(out[i] - expected) > 1e-5f) {
      std::cerr << "wrong result at " << i << ": " << out[i] << " vs " << expected << "\n";
      return 1;
    }
  }
  std::cout << "streamed " << mib << " MiB in " << chunks << " chunks through "
            << gpgpu::to_string(queue.method()) << " transfers\n"
            << profiler.table();
  return 0;
} catch (const gpgpu::Error& e) {
  std::cerr << "overlap_pipeline: " << e.what() << "\n";
  return 1;
}
