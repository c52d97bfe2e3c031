// MatmulMethod::HostBlas: the host's BLAS, for CPU devices (llvmpipe), where the "device"
// is the same cores and its memory is host memory: there, a tuned sgemm is 10-25x faster
// than the same arithmetic compiled from GLSL by llvmpipe (docs/matmul.md).
//
// The library is found at run time (dlopen), so gpgpu itself links no BLAS: OpenBLAS
// first (libopenblas.so.0), then the system's CBLAS. Host operands go straight to
// cblas_sgemm, with no copy; Buffer operands are downloaded and C uploaded through the
// Context's transfer engine.
#include <dlfcn.h>

#include <chrono>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/error.hpp"
#include "matmul/matmul_backend.hpp"

namespace gpgpu::detail {

namespace {

// cblas_sgemm with its enums as the ints they are (CblasRowMajor = 101, CblasNoTrans = 111).
using Sgemm = void (*)(int layout, int transa, int transb, int m, int n, int k, float alpha,
                       const float* a, int lda, const float* b, int ldb, float beta, float* c,
                       int ldc);
constexpr int row_major = 101;
constexpr int no_transpose = 111;

}  // namespace

struct HostBlas {
  Sgemm sgemm = nullptr;
  std::string library;
};

// Loaded once per process; the handle stays open (unloading a BLAS with live threads is
// a known way to crash at exit).
const HostBlas& host_blas() {
  static const HostBlas blas = [] {
    HostBlas found;
    for (const char* name :
         {"libopenblas.so.0", "libopenblas.so", "libcblas.so.3", "libblas.so.3", "libmkl_rt.so"}) {
      void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr) continue;
      if (void* symbol = dlsym(handle, "cblas_sgemm")) {
        found.sgemm = reinterpret_cast<Sgemm>(symbol);
        found.library = name;
        return found;
      }
      dlclose(handle);
    }
    return found;
  }();
  return blas;
}

namespace {

class HostBlasBackend final : public MatmulBackend {
 public:
  HostBlasBackend(MatmulShape shape, Sgemm sgemm) : shape_(shape), sgemm_(sgemm) {}

  void run(const Arg& a, const Arg& b, const Arg& c) override {
    const std::size_t mk = count(shape_.m, shape_.k), kn = count(shape_.k, shape_.n),
                      mn = count(shape_.m, shape_.n);
    std::vector<float> a_host, b_host, c_host;
    const float* a_data = host_operand(a, mk, a_host);
    const float* b_data = host_operand(b, kn, b_host);
    float* c_data = static_cast<float*>(c.writable_data());
    if (c.kind() == Arg::Kind::DeviceBuffer) {
      c_host.resize(mn);
      c_data = c_host.data();
    }
    const auto start = std::chrono::steady_clock::now();
    sgemm_(row_major, no_transpose, no_transpose, shape_.m, shape_.n, shape_.k, 1.0f, a_data,
           shape_.k, b_data, shape_.n, 0.0f, c_data, shape_.n);
    last_ns_ =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    if (c.kind() == Arg::Kind::DeviceBuffer) {
      // MatmulPlan checked that c is a float32 Buffer of this context; upload needs it
      // non-const, as the caller's c is.
      const_cast<Buffer*>(c.buffer())->upload(std::span<const float>(c_host));
    }
  }
  void set_timing(bool) override {}
  double last_gpu_ns() const override { return last_ns_; }

 private:
  static std::size_t count(int rows, int cols) {
    return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  }
  // The operand's host data: the caller's array, or a download of its Buffer.
  static const float* host_operand(const Arg& arg, std::size_t n, std::vector<float>& copy) {
    if (arg.kind() == Arg::Kind::HostArray) return static_cast<const float*>(arg.data());
    copy.resize(n);
    arg.buffer()->download(std::span<float>(copy));
    return copy.data();
  }

  MatmulShape shape_;
  Sgemm sgemm_;
  double last_ns_ = -1;
};

}  // namespace

std::unique_ptr<MatmulBackend> make_host_blas(const Context&, MatmulShape shape) {
  const auto& blas = host_blas();
  if (blas.sgemm == nullptr) {
    throw UnsupportedError(
        "matmul host_blas: no BLAS with cblas_sgemm was found (tried libopenblas.so.0, "
        "libcblas.so.3, libblas.so.3, libmkl_rt.so); install OpenBLAS (Debian/Ubuntu: "
        "apt-get install libopenblas0) or pick a shader method");
  }
  return std::make_unique<HostBlasBackend>(shape, blas.sgemm);
}

}  // namespace gpgpu::detail

namespace gpgpu {

bool host_blas_available(std::string* library) {
  const auto& blas = detail::host_blas();
  if (library != nullptr) *library = blas.library;
  return blas.sgemm != nullptr;
}

}  // namespace gpgpu
