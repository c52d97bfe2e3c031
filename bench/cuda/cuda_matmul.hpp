// bench/cuda/cuda_matmul.hpp — the CUDA reference the GLSL kernels are compared with
// (seed 003 compared gpgpu.js with CUDA). A plain C++ header: callers need no CUDA.
//
// Everything is row-major, C (m x n) = A (m x k) * B (k x n), float32 throughout. Every
// CUDA or cuBLAS failure throws gpgpu::Error naming the call and the CUDA error; size
// errors throw gpgpu::ArgumentError before the device is touched.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace gpgpu::cuda_ref {

// Whether a CUDA device can be used; when not, `why` (if given) receives the reason
// (no device, no driver, driver too old...). Never throws.
bool available(std::string* why = nullptr);

// Name of device 0, the one every function here uses.
std::string device_name();

struct Timing {
  double kernel_ms_median;      // the kernel (or cuBLAS call) alone, cudaEvent timed
  double end_to_end_ms_median;  // upload of A and B + kernel + download of C, pinned memory
};

enum class Method {
  Cublas,       // cublasSgemm, FP32 math (CUBLAS_DEFAULT_MATH: no TF32 tensor cores)
  NaiveKernel,  // one thread per output element, the seed-like plain loop
  TiledKernel,  // 16 x 16 tiles of A and B staged in shared memory
};

std::string method_name(Method method);

// Runs `warmup` untimed multiplications, then `repeats` timed ones of each kind, and writes
// the result into c. Needs m, k, n >= 1, repeats >= 1, warmup >= 0.
Timing matmul(Method method, std::span<const float> a, std::span<const float> b, std::span<float> c,
              int m, int k, int n, int warmup, int repeats);

// Pinned host <-> device copy bandwidth in GB/s (1e9 bytes per second), median of repeats.
double pinned_copy_gbps(std::size_t bytes, bool host_to_device);

// Device-to-device cudaMemcpy bandwidth in GB/s, counting the read and the write
// (2 * bytes per copy), median of repeats.
double device_copy_gbps(std::size_t bytes);

}  // namespace gpgpu::cuda_ref
