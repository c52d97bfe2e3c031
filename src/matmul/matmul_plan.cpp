// MatmulPlan and the one-shot matmul() calls: argument checks, choosing a method and a
// tuning, and moving host arrays to and from the device.
#include <cstdint>

#include <fmt/format.h>

#include "gl/context_state.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/matmul.hpp"
#include "matmul/matmul_backend.hpp"

namespace gpgpu {

namespace {

std::string shape_text(int m, int k, int n) {
  return fmt::format("m={}, k={}, n={}", m, k, n);
}

void check_sizes(const DeviceInfo& info, int m, int k, int n) {
  if (m <= 0 || k <= 0 || n <= 0) {
    throw SizeMismatchError(
        fmt::format("matmul: sizes must be positive ({})", shape_text(m, k, n)));
  }
  const auto check_bytes = [&](const char* name, std::int64_t rows, std::int64_t cols) {
    const std::int64_t bytes = rows * cols * 4;
    if (bytes > info.max_shader_storage_block_size) {
      throw LimitError(fmt::format(
          "matmul: {} is {} x {} ({} bytes) but the device binds at most {} bytes to one "
          "storage block (GL_MAX_SHADER_STORAGE_BLOCK_SIZE)",
          name, rows, cols, bytes, info.max_shader_storage_block_size));
    }
  };
  check_bytes("A", m, k);
  check_bytes("B", k, n);
  check_bytes("C", m, n);
}

MatmulMethod resolve_method(MatmulMethod method) {
  // One kernel wins everywhere we measured, also at small sizes where every method is
  // dominated by dispatch overhead (docs/matmul.md).
  return method == MatmulMethod::Auto ? MatmulMethod::ComputeRegisterBlocked : method;
}

MatmulTuning resolve_tuning(const Context& context, const MatmulOptions& options) {
  if (options.tuning) return *options.tuning;
  if (auto cached = cached_matmul_tuning(context, options.cache_dir)) return *cached;
  return MatmulTuning::for_device(context.info());
}

std::unique_ptr<detail::MatmulBackend> make_backend(const Context& context, MatmulMethod method,
                                                    detail::MatmulShape shape,
                                                    const MatmulTuning& tuning) {
  switch (method) {
    case MatmulMethod::ComputeNaive:
      return detail::make_compute_naive(context, shape);
    case MatmulMethod::ComputeTiled:
      return detail::make_compute_tiled(context, shape, tuning);
    case MatmulMethod::ComputeRegisterBlocked:
      return detail::make_compute_register_blocked(context, shape, tuning);
    case MatmulMethod::TransformFeedbackTexture:
      return detail::make_transform_feedback_texture(context, shape);
    case MatmulMethod::TransformFeedbackVec4:
      return detail::make_transform_feedback_vec4(context, shape);
    case MatmulMethod::TransformFeedbackBlocked:
      return detail::make_transform_feedback_blocked(context, shape);
    case MatmulMethod::FragmentNaive:
      return detail::make_fragment_naive(context, shape);
    case MatmulMethod::FragmentPacked:
      return detail::make_fragment_packed(context, shape);
    case MatmulMethod::Auto:
      break;
  }
  throw ArgumentError(fmt::format("matmul: unknown method {}", static_cast<int>(method)));
}

void check_buffer(const char* name, const Buffer& buffer, std::size_t needed, const char* dims,
                  const std::shared_ptr<detail::ContextState>& state) {
  if (!buffer.valid())
    throw ArgumentError(fmt::format("matmul: Buffer {} is empty or released", name));
  if (buffer.context_state() != state) {
    throw ArgumentError(fmt::format("matmul: Buffer {} belongs to another Context", name));
  }
  if (buffer.element_type() != ElementType::Float32) {
    throw TypeMismatchError(fmt::format("matmul: Buffer {} holds {}; matmul takes float32", name,
                                        to_string(buffer.element_type())));
  }
  if (buffer.size() < needed) {
    throw SizeMismatchError(fmt::format("matmul: Buffer {} has {} elements but {} = {} needs {}",
                                        name, buffer.size(), name, dims, needed));
  }
}

void check_span(const char* name, std::size_t size, std::size_t needed, const char* dims) {
  if (size != needed) {
    throw SizeMismatchError(fmt::format("matmul: {} has {} elements but {} is {} = {}", name, size,
                                        name, dims, needed));
  }
}

}  // namespace

MatmulPlan::MatmulPlan(const Context& context, int m, int k, int n, const MatmulOptions& options)
    : state_(context.state()), m_(m), k_(k), n_(n), method_(resolve_method(options.method)) {
  check_sizes(context.info(), m, k, n);
  tuning_ = resolve_tuning(context, options);
  validate_matmul_tuning(tuning_, context.info());
  backend_ = make_backend(context, method_, {m, k, n}, tuning_);
}

MatmulPlan::~MatmulPlan() = default;
MatmulPlan::MatmulPlan(MatmulPlan&&) noexcept = default;
MatmulPlan& MatmulPlan::operator=(MatmulPlan&&) noexcept = default;

void MatmulPlan::run(const Buffer& a, const Buffer& b, Buffer& c) {
  if (!backend_) throw Error("this MatmulPlan was moved from");
  const auto mk = static_cast<std::size_t>(m_) * static_cast<std::size_t>(k_);
  const auto kn = static_cast<std::size_t>(k_) * static_cast<std::size_t>(n_);
  const auto mn = static_cast<std::size_t>(m_) * static_cast<std::size_t>(n_);
  const std::string mk_text = fmt::format("{}x{}", m_, k_);
  const std::string kn_text = fmt::format("{}x{}", k_, n_);
  const std::string mn_text = fmt::format("{}x{}", m_, n_);
  check_buffer("A", a, mk, mk_text.c_str(), state_);
  check_buffer("B", b, kn, kn_text.c_str(), state_);
  check_buffer("C", c, mn, mn_text.c_str(), state_);
  if (c.gl_name() == a.gl_name() || c.gl_name() == b.gl_name()) {
    throw ArgumentError(
        "matmul: C must be a Buffer of its own, not A or B (the kernels read "
        "A and B while C is written)");
  }
  backend_->run(Arg(a), Arg(b), Arg(c));
}

void MatmulPlan::run(std::span<const float> a, std::span<const float> b, std::span<float> c) {
  if (!backend_) throw Error("this MatmulPlan was moved from");
  const auto mk = static_cast<std::size_t>(m_) * static_cast<std::size_t>(k_);
  const auto kn = static_cast<std::size_t>(k_) * static_cast<std::size_t>(n_);
  const auto mn = static_cast<std::size_t>(m_) * static_cast<std::size_t>(n_);
  check_span("A", a.size(), mk, fmt::format("m x k = {}x{}", m_, k_).c_str());
  check_span("B", b.size(), kn, fmt::format("k x n = {}x{}", k_, n_).c_str());
  check_span("C", c.size(), mn, fmt::format("m x n = {}x{}", m_, n_).c_str());
  // The kernel uploads a and b into temporary buffers and downloads c (never uploading it).
  backend_->run(Arg(a), Arg(b), Arg(c).with_access(Access::Write));
}

void MatmulPlan::set_timing(bool enabled) {
  if (backend_) backend_->set_timing(enabled);
}

double MatmulPlan::last_gpu_ns() const {
  return backend_ ? backend_->last_gpu_ns() : -1.0;
}

void matmul(const Context& context, std::span<const float> a, std::span<const float> b,
            std::span<float> c, int m, int k, int n, const MatmulOptions& options) {
  MatmulPlan(context, m, k, n, options).run(a, b, c);
}

std::vector<float> matmul(const Context& context, std::span<const float> a,
                          std::span<const float> b, int m, int k, int n,
                          const MatmulOptions& options) {
  MatmulPlan plan(context, m, k, n, options);
  std::vector<float> c(static_cast<std::size_t>(m) * static_cast<std::size_t>(n));
  plan.run(a, b, c);
  return c;
}

void matmul(const Context& context, const Buffer& a, const Buffer& b, Buffer& c, int m, int k,
            int n, const MatmulOptions& options) {
  MatmulPlan(context, m, k, n, options).run(a, b, c);
}

}  // namespace gpgpu
