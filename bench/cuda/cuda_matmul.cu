// The CUDA reference: cuBLAS SGEMM and two hand-written kernels, timed with CUDA events.
//
// Device 0 is used throughout. Resources are held by small RAII wrappers (cuda_common.cuh) so
// that an exception thrown by a failed call (every call is checked) frees what was allocated.
#include "cuda_matmul.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "cuda_common.cuh"

namespace gpgpu::cuda_ref {

void check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw Error(std::string(call) + " failed: " + cublasGetStatusName(status) + " (" +
                cublasGetStatusString(status) + ")");
  }
}

namespace {

constexpr int kTile = 16;             // tiled kernel: 16 x 16 threads, 16 x 16 tiles
constexpr int kNaiveBlockSize = 256;  // naive kernel: threads per block
constexpr int kCopyWarmup = 2;        // bandwidth measurements: untimed copies first
constexpr int kCopyRepeats = 10;      // then this many timed ones, median taken
constexpr int kMaxGridY = 65535;      // CUDA's limit on gridDim.y

class CublasHandle {
 public:
  explicit CublasHandle(cudaStream_t stream) {
    GPGPU_CUDA_CHECK(cublasCreate(&handle_));
    GPGPU_CUDA_CHECK(cublasSetStream(handle_, stream));
    // Plain FP32: CUBLAS_DEFAULT_MATH never uses TF32 tensor cores (that takes
    // CUBLAS_TF32_TENSOR_OP_MATH), which our GL kernels cannot reach either.
    GPGPU_CUDA_CHECK(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
  }
  ~CublasHandle() { cublasDestroy(handle_); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

// One thread per output element with a flat index, as seed 003's shader did with
// gl_VertexID: consecutive threads take consecutive columns of one row.
__global__ void naive_kernel(const float* __restrict__ a, const float* __restrict__ b,
                             float* __restrict__ c, int m, int k, int n) {
  const std::int64_t index = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (index >= std::int64_t{m} * n) return;
  const std::int64_t row = index / n;
  const std::int64_t col = index % n;
  float sum = 0.0f;
  for (int i = 0; i < k; ++i) sum += a[row * k + i] * b[std::int64_t{i} * n + col];
  c[index] = sum;
}

// Each 16 x 16 block computes a 16 x 16 tile of C. Tiles of A and B are staged in shared
// memory so that each element loaded from global memory is used 16 times; elements past
// the matrix edges are loaded as 0 so that partial tiles need no special inner loop.
__global__ void tiled_kernel(const float* __restrict__ a, const float* __restrict__ b,
                             float* __restrict__ c, int m, int k, int n) {
  __shared__ float a_tile[kTile][kTile];
  __shared__ float b_tile[kTile][kTile];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;
  float sum = 0.0f;
  for (int tile_start = 0; tile_start < k; tile_start += kTile) {
    const int a_col = tile_start + tx;
    const int b_row = tile_start + ty;
    a_tile[ty][tx] = row < m && a_col < k ? a[std::int64_t{row} * k + a_col] : 0.0f;
    b_tile[ty][tx] = b_row < k && col < n ? b[std::int64_t{b_row} * n + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < kTile; ++i) sum += a_tile[ty][i] * b_tile[i][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[std::int64_t{row} * n + col] = sum;
}

void check_matmul_arguments(std::span<const float> a, std::span<const float> b, std::span<float> c,
                            int m, int k, int n, int warmup, int repeats) {
  const std::string function = "gpgpu::cuda_ref::matmul: ";
  if (m < 1 || k < 1 || n < 1) {
    throw ArgumentError(function + "sizes must be at least 1, found m = " + std::to_string(m) +
                        ", k = " + std::to_string(k) + ", n = " + std::to_string(n));
  }
  if (warmup < 0 || repeats < 1) {
    throw ArgumentError(function + "expected warmup >= 0 and repeats >= 1, found warmup = " +
                        std::to_string(warmup) + ", repeats = " + std::to_string(repeats));
  }
  const std::int64_t naive_blocks = (std::int64_t{m} * n + kNaiveBlockSize - 1) / kNaiveBlockSize;
  if (naive_blocks > std::numeric_limits<int>::max()) {
    throw ArgumentError(function + "m * n = " + std::to_string(std::int64_t{m} * n) +
                        " outputs exceed the naive kernel's grid");
  }
  if ((m + kTile - 1) / kTile > kMaxGridY) {
    throw ArgumentError(function + "m = " + std::to_string(m) + " exceeds the tiled kernel's " +
                        std::to_string(kMaxGridY * kTile) + " rows");
  }
  const auto check_span = [&](const char* name, std::size_t size, const char* matrix, int rows,
                              int cols) {
    const std::size_t needed = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
    if (size < needed) {
      throw ArgumentError(function + name + " holds " + std::to_string(size) + " elements, but " +
                          matrix + " (" + std::to_string(rows) + " x " + std::to_string(cols) +
                          ") needs " + std::to_string(needed));
    }
  };
  check_span("a", a.size(), "A", m, k);
  check_span("b", b.size(), "B", k, n);
  check_span("c", c.size(), "C", m, n);
}

void check_copy_size(const char* function, std::size_t bytes) {
  if (bytes == 0) {
    throw ArgumentError(std::string("gpgpu::cuda_ref::") + function + ": bytes must be > 0");
  }
}

}  // namespace

bool available(std::string* why) {
  const auto refuse = [&](const std::string& reason) {
    if (why != nullptr) *why = reason;
    cudaGetLastError();  // leave no error behind for the caller's next CUDA call
    return false;
  };
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    return refuse(std::string("no usable CUDA device: cudaGetDeviceCount failed: ") +
                  cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
  }
  if (count == 0) return refuse("no CUDA device found");
  // A device older than the architectures this file was compiled for has no code to run.
  cudaFuncAttributes attributes{};
  const cudaError_t kernel_status = cudaFuncGetAttributes(&attributes, tiled_kernel);
  if (kernel_status != cudaSuccess) {
    return refuse(std::string("the CUDA kernels cannot run on device 0 (") +
                  cudaGetErrorName(kernel_status) + ": " + cudaGetErrorString(kernel_status) +
                  "); rebuild with CMAKE_CUDA_ARCHITECTURES set for this device");
  }
  if (why != nullptr) why->clear();
  return true;
}

std::string device_name() {
  cudaDeviceProp properties{};
  GPGPU_CUDA_CHECK(cudaGetDeviceProperties(&properties, 0));
  return properties.name;
}

std::string method_name(Method method) {
  switch (method) {
    case Method::Cublas:
      return "cublas";
    case Method::NaiveKernel:
      return "naive-kernel";
    case Method::TiledKernel:
      return "tiled-kernel";
  }
  throw ArgumentError("gpgpu::cuda_ref: invalid Method " +
                      std::to_string(static_cast<int>(method)));
}

Timing matmul(Method method, std::span<const float> a, std::span<const float> b, std::span<float> c,
              int m, int k, int n, int warmup, int repeats) {
  check_matmul_arguments(a, b, c, m, k, n, warmup, repeats);
  method_name(method);  // rejects an invalid enumerator before anything is allocated
  GPGPU_CUDA_CHECK(cudaSetDevice(0));
  const std::size_t a_count = static_cast<std::size_t>(m) * static_cast<std::size_t>(k);
  const std::size_t b_count = static_cast<std::size_t>(k) * static_cast<std::size_t>(n);
  const std::size_t c_count = static_cast<std::size_t>(m) * static_cast<std::size_t>(n);

  CudaArray<float> host_a(a_count, true), host_b(b_count, true), host_c(c_count, true);
  std::memcpy(host_a.get(), a.data(), host_a.bytes());
  std::memcpy(host_b.get(), b.data(), host_b.bytes());
  CudaArray<float> device_a(a_count), device_b(b_count), device_c(c_count);
  Stream stream;
  std::optional<CublasHandle> cublas;  // created only for Method::Cublas
  if (method == Method::Cublas) cublas.emplace(stream.get());

  // All-ones bytes are a NaN: an element the method fails to write cannot pass a check.
  GPGPU_CUDA_CHECK(cudaMemsetAsync(device_c.get(), 0xff, device_c.bytes(), stream.get()));
  const auto upload = [&] {
    GPGPU_CUDA_CHECK(cudaMemcpyAsync(device_a.get(), host_a.get(), host_a.bytes(),
                                     cudaMemcpyHostToDevice, stream.get()));
    GPGPU_CUDA_CHECK(cudaMemcpyAsync(device_b.get(), host_b.get(), host_b.bytes(),
                                     cudaMemcpyHostToDevice, stream.get()));
  };
  const auto download = [&] {
    GPGPU_CUDA_CHECK(cudaMemcpyAsync(host_c.get(), device_c.get(), device_c.bytes(),
                                     cudaMemcpyDeviceToHost, stream.get()));
  };
  const auto multiply = [&] {
    switch (method) {
      case Method::Cublas: {
        // cuBLAS is column-major. Row-major C (m x n) is column-major C^T (n x m), and
        // C^T = B^T A^T, where row-major B and A read as column-major are B^T and A^T.
        const float alpha = 1.0f;
        const float beta = 0.0f;
        GPGPU_CUDA_CHECK(cublasSgemm(cublas->get(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha,
                                     device_b.get(), n, device_a.get(), k, &beta, device_c.get(),
                                     n));
        break;
      }
      case Method::NaiveKernel: {
        const std::int64_t outputs = std::int64_t{m} * n;
        const auto blocks =
            static_cast<unsigned>((outputs + kNaiveBlockSize - 1) / kNaiveBlockSize);
        naive_kernel<<<blocks, kNaiveBlockSize, 0, stream.get()>>>(device_a.get(), device_b.get(),
                                                                   device_c.get(), m, k, n);
        GPGPU_CUDA_CHECK(cudaGetLastError());
        break;
      }
      case Method::TiledKernel: {
        const dim3 threads(kTile, kTile);
        const dim3 blocks((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
        tiled_kernel<<<blocks, threads, 0, stream.get()>>>(device_a.get(), device_b.get(),
                                                           device_c.get(), m, k, n);
        GPGPU_CUDA_CHECK(cudaGetLastError());
        break;
      }
    }
  };

  upload();
  for (int i = 0; i < warmup; ++i) multiply();
  GPGPU_CUDA_CHECK(cudaStreamSynchronize(stream.get()));

  const double kernel_ms = median_event_ms(stream.get(), 0, repeats, multiply);
  const double end_to_end_ms = median_event_ms(stream.get(), 0, repeats, [&] {
    upload();
    multiply();
    download();
  });
  GPGPU_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  std::memcpy(c.data(), host_c.get(), host_c.bytes());
  return {kernel_ms, end_to_end_ms};
}

double pinned_copy_gbps(std::size_t bytes, bool host_to_device) {
  check_copy_size("pinned_copy_gbps", bytes);
  GPGPU_CUDA_CHECK(cudaSetDevice(0));
  CudaArray<std::byte> host(bytes, true);
  std::memset(host.get(), 0x5a, bytes);  // touch every page before timing
  CudaArray<std::byte> device(bytes);
  Stream stream;
  const auto copy = [&] {
    if (host_to_device) {
      GPGPU_CUDA_CHECK(
          cudaMemcpyAsync(device.get(), host.get(), bytes, cudaMemcpyHostToDevice, stream.get()));
    } else {
      GPGPU_CUDA_CHECK(
          cudaMemcpyAsync(host.get(), device.get(), bytes, cudaMemcpyDeviceToHost, stream.get()));
    }
  };
  const double ms = median_event_ms(stream.get(), kCopyWarmup, kCopyRepeats, copy);
  return static_cast<double>(bytes) / (ms * 1e-3) / 1e9;
}

double device_copy_gbps(std::size_t bytes) {
  check_copy_size("device_copy_gbps", bytes);
  GPGPU_CUDA_CHECK(cudaSetDevice(0));
  CudaArray<std::byte> source(bytes), destination(bytes);
  Stream stream;
  GPGPU_CUDA_CHECK(cudaMemsetAsync(source.get(), 0x5a, bytes, stream.get()));
  const auto copy = [&] {
    GPGPU_CUDA_CHECK(cudaMemcpyAsync(destination.get(), source.get(), bytes,
                                     cudaMemcpyDeviceToDevice, stream.get()));
  };
  const double ms = median_event_ms(stream.get(), kCopyWarmup, kCopyRepeats, copy);
  return 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9;
}

}  // namespace gpgpu::cuda_ref
