// MatmulPlan and the one-shot matmul() calls: argument checks, choosing a method and a
// tuning, and moving host arrays to and from the device.
#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "gl/context_state.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/matmul.hpp"
#include "matmul/matmul_backend.hpp"
#include "matmul/matmul_split_k.hpp"

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
  // Storage blocks hold the operands of the compute methods and of packing; without compute
  // shaders (WebGL2) there are none, and the textures' own limits apply.
  if (!info.has_compute_shaders()) return;
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

// Auto: on a CPU device the host's BLAS (the operands already live in host memory, and a
// tuned sgemm beats llvmpipe's compiled GLSL 10-25x on the same cores); elsewhere the
// register-blocked compute kernel, which wins at every size we measured (docs/matmul.md).
MatmulMethod resolve_method(MatmulMethod method, const DeviceInfo& info) {
  if (method != MatmulMethod::Auto) return method;
  // WebGL2 (no compute shaders): the 4x4-block transform-feedback kernel, the fastest of
  // the graphics paths in the browser's benchmark (docs/browser.md).
  if (!info.has_compute_shaders()) return MatmulMethod::TransformFeedbackBlocked;
  if (info.is_software && host_blas_available()) return MatmulMethod::HostBlas;
  return MatmulMethod::ComputeRegisterBlocked;
}

// An explicit tuning as given (its tile the device's default where it leaves it 0); else the
// autotuned one cached for this device, else the device default, with the split-K that fits this
// shape to the device's compute units.
MatmulTuning resolve_tuning(const Context& context, const MatmulOptions& options, int m, int k,
                            int n) {
  if (options.tuning) {
    MatmulTuning given = *options.tuning;
    if (given.tile == 0) given.tile = detail::default_tile(context.info());
    return given;
  }
  MatmulTuning t = MatmulTuning::for_device(context.info());
  if (auto cached = cached_matmul_tuning(context, options.cache_dir)) t = *cached;
  t.split_k = detail::auto_split_k(t, context.info(), m, k, n);
  return t;
}

std::string describe(MatmulMethod method, const MatmulTuning& t, const DeviceInfo& info,
                     bool automatic) {
  if (method == MatmulMethod::HostBlas) {
    std::string library;
    host_blas_available(&library);
    return fmt::format("host_blas: cblas_sgemm from {}{}", library,
                       automatic ? " (Auto on a CPU device: the operands are in host memory "
                                   "already, and a BLAS is faster there than shaders)"
                                 : "");
  }
  std::string text(to_string(method));
  if (method == MatmulMethod::ComputeRegisterBlocked) text += fmt::format(" {}", t.to_string());
  if (method == MatmulMethod::ComputeTiled) text += fmt::format(" tile {}", t.tile);
  if (automatic && method == MatmulMethod::ComputeRegisterBlocked) {
    text += info.compute_units > 0
                ? fmt::format(" (Auto: tiles and split-K for {} compute units)", info.compute_units)
                : " (Auto: device default; its number of compute units is unknown)";
  }
  return text;
}

// Host runs on a GPU in row panels (MatmulOptions::panels): from 2048^3 on, four, so that
// C comes back while the next panel is computed; smaller products are over too soon.
int resolve_panels(const MatmulOptions& options, MatmulMethod method, const MatmulTuning& t,
                   const DeviceInfo& info, int m, int k, int n) {
  if (method != MatmulMethod::ComputeRegisterBlocked || !t.shared_memory) return 1;
  int panels = options.panels;
  if (panels <= 0) {
    if (info.is_software) return 1;  // one set of cores: nothing to overlap
    const double work = static_cast<double>(m) * k * n;
    panels = work >= 2048.0 * 2048.0 * 2048.0 ? 4 : 1;
  }
  // Whole block rows per panel, at least one.
  return std::clamp(panels, 1, std::max(1, m / t.block_m));
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
    case MatmulMethod::HostBlas:
      return detail::make_host_blas(context, shape);
    case MatmulMethod::Auto:
      break;
  }
  throw ArgumentError(fmt::format("matmul: unknown method {}", static_cast<int>(method)));
}

// The backend for m x k x n: one pass where the method's loops and textures take k, else
// passes over slices of k (matmul_split_k.hpp), so that no method is ever silently cut short
// by a device's loop cap.
std::unique_ptr<detail::MatmulBackend> make_bounded_backend(const Context& context,
                                                            MatmulMethod method,
                                                            detail::MatmulShape shape,
                                                            const MatmulTuning& tuning) {
  const int k_pass = detail::max_k_per_pass(method, tuning, context.info());
  if (k_pass == 0 || shape.k <= k_pass) return make_backend(context, method, shape, tuning);
  return detail::make_split_k(context, shape, k_pass,
                              make_backend(context, method, {shape.m, k_pass, shape.n}, tuning));
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
    : state_(context.state()),
      m_(m),
      k_(k),
      n_(n),
      method_(resolve_method(options.method, context.info())) {
  const auto& info = context.info();
  check_sizes(info, m, k, n);
  tuning_ = resolve_tuning(context, options, m, k, n);
  // The tuning shapes the compute kernels, which a device without them never runs.
  if (info.has_compute_shaders()) validate_matmul_tuning(tuning_, info);
  description_ = describe(method_, tuning_, info, options.method == MatmulMethod::Auto);
  backend_ = make_bounded_backend(context, method_, {m, k, n}, tuning_);
  const int panels = resolve_panels(options, method_, tuning_, info, m, k, n);
  if (panels > 1) {
    panel_rows_ = (m + panels - 1) / panels;
    panel_rows_ = (panel_rows_ + tuning_.block_m - 1) / tuning_.block_m * tuning_.block_m;
    auto panel_tuning = [&](int rows) {
      MatmulTuning t = tuning_;
      if (!options.tuning) t.split_k = detail::auto_split_k(t, info, rows, k, n);
      return t;
    };
    panel_ = make_bounded_backend(context, method_, {panel_rows_, k, n}, panel_tuning(panel_rows_));
    const int last_rows = m - (m - 1) / panel_rows_ * panel_rows_;
    if (last_rows != panel_rows_) {
      last_panel_ =
          make_bounded_backend(context, method_, {last_rows, k, n}, panel_tuning(last_rows));
    }
    panel_b_ = std::make_unique<Buffer>(context, ElementType::Float32,
                                        static_cast<std::size_t>(k) * static_cast<std::size_t>(n));
    description_ +=
        fmt::format(", host operands in {} row panels", (m + panel_rows_ - 1) / panel_rows_);
  }
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
  used_panels_ = false;
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
  used_panels_ = panel_ != nullptr;
  if (panel_) {
    run_panels(a, b, c);
    return;
  }
  // The kernel uploads a and b into temporary buffers and downloads c (never uploading it).
  backend_->run(Arg(a), Arg(b), Arg(c).with_access(Access::Write));
}

void MatmulPlan::run_panels(std::span<const float> a, std::span<const float> b,
                            std::span<float> c) {
  // B goes up once; then each panel's rows of A go up and its rows of C come back while
  // the next panel is computed (the transfer engine's delivery thread copies them out).
  panel_b_->upload(b);
  std::vector<PendingRun> pending;
  const auto k = static_cast<std::size_t>(k_), n = static_cast<std::size_t>(n_);
  double ns = 0;
  bool timed = true;
  for (int row = 0; row < m_; row += panel_rows_) {
    const int rows = std::min(panel_rows_, m_ - row);
    auto& backend = rows == panel_rows_ ? *panel_ : *last_panel_;
    const auto first = static_cast<std::size_t>(row);
    const auto count = static_cast<std::size_t>(rows);
    pending.push_back(
        backend.run_async(Arg(a.subspan(first * k, count * k)), Arg(*panel_b_),
                          Arg(c.subspan(first * n, count * n)).with_access(Access::Write)));
    if (backend.last_gpu_ns() < 0) timed = false;
    ns += backend.last_gpu_ns();
  }
  for (auto& p : pending) p.wait();
  panel_ns_ = timed ? ns : -1;
}

void MatmulPlan::set_timing(bool enabled) {
  for (auto* backend : {backend_.get(), panel_.get(), last_panel_.get()}) {
    if (backend != nullptr) backend->set_timing(enabled);
  }
}

double MatmulPlan::last_gpu_ns() const {
  if (panel_ && used_panels_) return panel_ns_;
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
