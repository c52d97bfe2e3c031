// gpgpu/matmul.hpp — C = A · B in float32 on the GPU, for any m, k, n.
//
//   std::vector<float> a(m * k), b(k * n), c(m * n);          // row-major
//   gpgpu::matmul(ctx, a, b, c, m, k, n);                      // upload, multiply, download
//
//   gpgpu::MatmulPlan plan(ctx, m, k, n);                      // compile once, run many times
//   plan.run(a_buffer, b_buffer, c_buffer);                    // device-resident, no transfers
//
// Every matrix is row-major (C order): A is m x k, B is k x n, C is m x n. Sizes need not be
// multiples of any tile: the kernels load zeros past the edges and store only what exists.
//
// Accuracy: each entry is a float32 dot product of length k. The result obeys the classic
// bound |c - exact| <= gamma_k * sum_i |a_ri| |b_ic| with gamma_k ~ k * 2^-24 (the tests
// check (k + 2) * 2^-24); for random data the typical error grows like sqrt(k) instead.
// The methods differ in summation order, so their results differ in the last bits.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpgpu/context.hpp"

namespace gpgpu {

class Buffer;

// How the product is computed. The compute methods are the fast ones. The transform-feedback
// and fragment methods are the ways gpgpu.js and GPGPUtility had in WebGL, kept for
// comparison: their operands are packed into textures and their product gathered back into
// C by compute dispatches (included in their timings); the fragment methods need
// GL_EXT_color_buffer_float (else UnsupportedError). Textures limit their m and n to the
// device's GL_MAX_TEXTURE_SIZE (LimitError beyond).
//
// Any k: where one pass of a method cannot take k — its k loop past a device's loop cap
// (DeviceInfo::max_loop_iterations: llvmpipe's 65535), or k past what its textures hold —
// the plan sums the product over passes of at most that many k (a dispatch each, the product
// of each added into C). The error bound below still holds.
enum class MatmulMethod {
  Auto,                      // the autotuned choice for this device if cached, else a default
  ComputeNaive,              // one output per invocation, operands read straight from storage
  ComputeTiled,              // TILE x TILE shared-memory tiles, one output per invocation
  ComputeRegisterBlocked,    // a block tile per work group, a TM x TN block per invocation
  TransformFeedbackTexture,  // gpgpu.js: one output per vertex, A and B in textures
  TransformFeedbackVec4,     // gpgpu.js's speed-up: B transposed, vec4 dot products
  TransformFeedbackBlocked,  // one vertex per 4x4 block of C, 4 vec4 outputs
  FragmentNaive,             // one output per fragment (GPGPUtility)
  FragmentPacked,            // RGBA-packed 4x4 blocks through 4 render targets
  HostBlas,                  // the host's BLAS (OpenBLAS, found at run time): what Auto picks
                             // on CPU devices, where the "GPU" is the same cores
};

// "compute_naive", "transform_feedback_vec4", ... (the names the bench and CLI use).
std::string_view to_string(MatmulMethod method);
// Accepts the names to_string gives (and "auto"); nullopt for anything else.
std::optional<MatmulMethod> parse_matmul_method(std::string_view name);
// Every shader method (all but Auto and HostBlas), in declaration order.
std::vector<MatmulMethod> all_matmul_methods();
// Whether this build has the method (the device may still lack a feature it needs; HostBlas
// needs a BLAS library at run time: see host_blas_available).
bool matmul_method_implemented(MatmulMethod method);
// Whether MatmulMethod::HostBlas can run here: a library with cblas_sgemm was found
// (libopenblas.so.0, libcblas.so.3, libblas.so.3). `library` receives its name.
bool host_blas_available(std::string* library = nullptr);

// The tunables, compiled into the kernels as `#define`s. The defaults depend on the device
// (MatmulTuning::for_device); autotune_matmul picks among a few candidates by timing them.
struct MatmulTuning {
  // ComputeRegisterBlocked: a work group computes a block_m x block_n tile of C, walking k in
  // steps of block_k; each invocation accumulates thread_m x thread_n outputs, so a work
  // group has (block_m / thread_m) * (block_n / thread_n) invocations.
  int block_m = 64;  // rows of C per work group
  int block_n = 64;  // columns of C per work group
  int block_k = 8;   // depth of each step along k
  int thread_m = 4;  // 4, 8 or 16: rows come in vec4 groups
  int thread_n = 4;  // 4, 8 or 16: columns come in vec4 groups
  // Stage block_k-deep slices of A and B in shared memory (double-buffered). Right for GPUs;
  // on llvmpipe, where shared memory is plain memory and barriers are coroutine switches,
  // reading operands straight from storage is faster (and block_k is then unused).
  bool shared_memory = true;
  // Without shared memory: read B through an RGBA32F texture (packed from B by one extra
  // pass) instead of storage. On llvmpipe a texel fetch is a vector gather while a storage
  // load whose address differs between invocations is a loop over the lanes. Ignored (B is
  // read from storage) when B does not fit a texture of k x ceil(n/4).
  bool b_texture = false;
  // ComputeTiled: the edge of its square tiles (and of its work group). 0: 16, or the
  // largest power of two whose square the device's work groups hold (8 at OpenGL ES 3.1's
  // minimum of 128 invocations).
  int tile = 0;
  // ComputeRegisterBlocked on GPUs: split k over this many work groups per tile of C, whose
  // partial products a last pass sums. More work groups for small products, which otherwise
  // leave most multiprocessors idle (a 1024^2 C is 64 tiles of 128x128 for 132 SMs).
  int split_k = 1;

  int threads() const { return (block_m / thread_m) * (block_n / thread_n); }  // per work group
  // "128x128x8 8x8" — the register-blocked shape, block then thread; " direct" is
  // appended when shared_memory is off, " btex" when b_texture is on, " split-K 4" when
  // split_k > 1.
  std::string to_string() const;
  bool operator==(const MatmulTuning&) const = default;  // every field equal

  // The default for a device: 128x128x8 with 8x8 per invocation (256 invocations) and
  // shared memory on GPUs; on llvmpipe 8x256 blocks of 8x16 per invocation (16 invocations,
  // two 8-lane vectors), A from storage, B from a texture.
  static MatmulTuning for_device(const DeviceInfo& device);
  // What MatmulMethod::Auto runs for an m x k x n product on a GPU when no tuning is given
  // or cached: the block tile and split-K that fill the device's compute units
  // (DeviceInfo::compute_units) best, by a model of waves of work groups (docs/matmul.md);
  // for_device where the number of compute units is unknown, and on CPU devices.
  static MatmulTuning for_shape(const DeviceInfo& device, int m, int k, int n);
};

// Throws ArgumentError naming the field if the tuning cannot be compiled for the device
// (shapes that do not divide, too many invocations, too much shared memory).
void validate_matmul_tuning(const MatmulTuning& tuning, const DeviceInfo& device);

// How a matmul runs: the method, its tuning, where tunings are cached, host panels.
struct MatmulOptions {
  MatmulMethod method = MatmulMethod::Auto;  // which kernel (Auto: the best for the device)
  // Unset: the autotuned tuning cached for this device, else MatmulTuning::for_device.
  std::optional<MatmulTuning> tuning;
  // Where autotune_matmul's cache lives (empty: $GPGPU_CACHE_DIR, else ~/.cache/gpgpu).
  std::filesystem::path cache_dir;
  // Host operands on a GPU: compute C in this many row panels, so that each panel's C
  // comes back while the next is computed and its rows of A go up (0: chosen from the size;
  // 1: one piece).
  int panels = 0;
};

namespace detail {
class MatmulBackend;
}

// A multiplication of one shape, compiled once: run it as often as you like.
class MatmulPlan {
 public:
  // Throws SizeMismatchError for non-positive sizes, LimitError when a matrix exceeds what
  // one storage block holds, UnsupportedError for a method that is not available.
  MatmulPlan(const Context& context, int m, int k, int n, const MatmulOptions& options = {});
  ~MatmulPlan();
  // @{
  // Moves the compiled plan; running a moved-from plan throws Error.
  MatmulPlan(MatmulPlan&&) noexcept;
  MatmulPlan& operator=(MatmulPlan&&) noexcept;
  // @}
  MatmulPlan(const MatmulPlan&) = delete;
  MatmulPlan& operator=(const MatmulPlan&) = delete;

  // Device-resident operands: float32 Buffers of at least m*k, k*n and m*n elements, from
  // this plan's Context. c must not be a or b. Nothing is copied to or from the host.
  void run(const Buffer& a, const Buffer& b, Buffer& c);
  // Host operands of exactly m*k, k*n and m*n elements: uploads a and b, multiplies,
  // downloads into c. Throws SizeMismatchError (before touching c) on a wrong length.
  void run(std::span<const float> a, std::span<const float> b, std::span<float> c);

  int m() const { return m_; }  // rows of A and C
  int k() const { return k_; }  // columns of A, rows of B
  int n() const { return n_; }  // columns of B and C
  MatmulMethod method() const { return method_; }  // what Auto resolved to
  const MatmulTuning& tuning() const { return tuning_; }  // the tuning it was compiled with
  // What runs and why, e.g. "compute_register_blocked 64x64x8 8x8 (Auto: 256 work groups
  // for 132 compute units)" or "host_blas: libopenblas.so.0 (Auto on a CPU device)".
  const std::string& description() const { return description_; }

  // GPU nanoseconds of the last run's kernel (GL_TIME_ELAPSED), when timing is on and the
  // device has timer queries; otherwise -1. Uploads and downloads are not included.
  void set_timing(bool enabled);
  double last_gpu_ns() const;  // see set_timing

 private:
  void run_panels(std::span<const float> a, std::span<const float> b, std::span<float> c);

  std::shared_ptr<detail::ContextState> state_;
  int m_ = 0, k_ = 0, n_ = 0;
  MatmulMethod method_ = MatmulMethod::Auto;
  MatmulTuning tuning_;
  std::string description_;
  std::unique_ptr<detail::MatmulBackend> backend_;
  // Host runs in row panels: rows per panel, and the backends for a panel and the last.
  int panel_rows_ = 0;
  std::unique_ptr<detail::MatmulBackend> panel_, last_panel_;
  std::unique_ptr<Buffer> panel_b_;  // B on the device, uploaded once per panelled run
  bool used_panels_ = false;         // the last run was panelled
  double panel_ns_ = -1;
};

// @{
// One-shot forms (the compiled kernels are cached by the Context, so repeated calls with the
// same shape and method do not recompile): C (m x n) = A (m x k) B (k x n), row-major.
void matmul(const Context& context, std::span<const float> a, std::span<const float> b,
            std::span<float> c, int m, int k, int n, const MatmulOptions& options = {});
std::vector<float> matmul(const Context& context, std::span<const float> a,
                          std::span<const float> b, int m, int k, int n,
                          const MatmulOptions& options = {});
void matmul(const Context& context, const Buffer& a, const Buffer& b, Buffer& c, int m, int k,
            int n, const MatmulOptions& options = {});
// @}

// ---- Autotuning ------------------------------------------------------------------------

// How autotune_matmul times and caches.
struct AutotuneOptions {
  bool use_cache = true;    // return the cached choice for this device if there is one
  bool write_cache = true;  // store the choice
  int repeats = 3;          // timed runs per candidate (after one warm-up); the median counts
  std::filesystem::path cache_dir;  // empty: $GPGPU_CACHE_DIR, else ~/.cache/gpgpu
};

// One tuning autotune_matmul timed, and how it did.
struct AutotuneCandidate {
  MatmulTuning tuning;  // the candidate
  double gpu_ms = -1;   // median kernel time; -1 if the candidate failed
  double gflops = 0;    // 2 n^3 / gpu_ms
  std::string failure;  // why a candidate was rejected (did not compile, wrong result...)
};

// What autotune_matmul chose, and what it timed.
struct AutotuneResult {
  MatmulTuning best;  // the fastest correct candidate
  double gflops = 0;  // of the best candidate, at n x n x n
  int n = 0;          // the size timed
  bool from_cache = false;                    // true: read from cache_file, nothing was timed
  std::vector<AutotuneCandidate> candidates;  // empty when from_cache
  std::filesystem::path cache_file;           // where the choice is cached
};

// The candidates autotune_matmul times on this device (at most 8).
std::vector<MatmulTuning> matmul_tuning_candidates(const DeviceInfo& device);

// Times each candidate tuning of ComputeRegisterBlocked on an n x n x n product of random
// data: GPU timer queries where the device has them, else (and on llvmpipe, whose timer
// queries do not see the work) wall clock around the run and glFinish. Rejects any
// candidate whose sampled entries disagree with a float64 reference, and caches the fastest
// per device (keyed by its GL renderer string; an entry measured under another GL version
// string, i.e. another driver, is tuned again) in `<cache dir>/matmul_tuning.json`.
// MatmulMethod::Auto uses the cached choice from then on. The candidates' kernels are
// compiled together first (gpgpu::precompile). With GPGPU_CACHE=off nothing is read or
// written.
AutotuneResult autotune_matmul(const Context& context, int n = 1024,
                               const AutotuneOptions& options = {});

// The cached choice for this device and driver, if autotune_matmul has stored one (never
// with GPGPU_CACHE=off).
std::optional<MatmulTuning> cached_matmul_tuning(const Context& context,
                                                 const std::filesystem::path& cache_dir = {});
// `<cache_dir or $GPGPU_CACHE_DIR or ~/.cache/gpgpu>/matmul_tuning.json`
std::filesystem::path matmul_cache_file(const std::filesystem::path& cache_dir = {});

}  // namespace gpgpu
