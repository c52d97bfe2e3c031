#include "gpgpu/transform_feedback_kernel.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "binding/binding.hpp"
#include "gl/framebuffer.hpp"
#include "gl/gl_buffer.hpp"
#include "shader/glsl_helpers.hpp"
#include "shader/glsl_source.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/texture.hpp"
#include "gl/gpu_timer.hpp"
#include "binding/layout_pack.hpp"
#include "gl/scoped_gl_name.hpp"
#include "binding/texture_binding.hpp"
#include "shader/transform_feedback_program.hpp"

namespace gpgpu {

namespace {

std::string vertex_prelude() {
  return std::string(
             "uniform int gpgpu_count;\n"
             "int gpgpu_index() { return gl_VertexID; }\n") +
         std::string(detail::array_fetch_glsl);
}

// Tightly packed elements (as vertex attributes are read and transform feedback writes),
// matrices column by column.
detail::ArrayLayout packed_layout(const detail::GlslType& type) {
  detail::ArrayLayout l;
  l.rows = type.rows;
  l.columns = type.columns;
  l.array_stride = 4 * type.components();
  l.matrix_stride = 4 * type.rows;
  return l;
}

// A per-element array bound to an input or an output for one run.
struct ArrayBinding {
  const NamedArg* arg = nullptr;
  detail::GlslType type;
  std::size_t elements = 0;
  const Buffer* buffer = nullptr;  // a device Buffer, else a host array
};

ArrayBinding check_array(const NamedArg& arg, const detail::GlslType& type,
                         const std::shared_ptr<detail::ContextState>& state, bool is_output,
                         const std::string& label) {
  const char* what = is_output ? "output" : "input";
  const Arg& v = arg.value;
  ArrayBinding b;
  b.arg = &arg;
  b.type = type;
  if (v.kind() == Arg::Kind::DeviceBuffer) {
    if (v.buffer() == nullptr || !v.buffer()->valid()) {
      throw ArgumentError(
          fmt::format("{}: the Buffer for {} '{}' is empty or released", label, what, arg.name));
    }
    if (v.buffer()->context_state() != state) {
      throw ArgumentError(fmt::format("{}: the Buffer for {} '{}' belongs to another Context",
                                      label, what, arg.name));
    }
    b.buffer = v.buffer();
  } else if (v.kind() == Arg::Kind::HostArray) {
    if (is_output && (v.access() == Access::Read || v.writable_data() == nullptr)) {
      throw ArgumentError(
          fmt::format("{}: output '{}' was given a read-only array; pass a non-const std::vector, "
                      "gpgpu::out(...) or a Buffer",
                      label, arg.name));
    }
  } else {
    throw TypeMismatchError(
        fmt::format("{}: {} {} {} takes one value per element: a host array or a Buffer, not {}",
                    label, what, type.name, arg.name, v.describe()));
  }
  detail::check_element_type(arg, type, label, what);
  b.elements = detail::whole_elements(arg, type, label, what);
  return b;
}

// Undoes the capture state even when a call in between throws.
class CaptureScope {
 public:
  CaptureScope(GLuint transform_feedback, GLuint vertex_array)
      : transform_feedback_(transform_feedback) {
    GL(glBindVertexArray(vertex_array));
    GL(glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, transform_feedback_));
    GL(glEnable(GL_RASTERIZER_DISCARD));  // compute only: no fragments, nothing drawn
  }
  // Counts the captured points in `query` while capturing.
  void begin(GLuint query) {
    GL(glBeginQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, query));
    query_active_ = true;
    GL(glBeginTransformFeedback(GL_POINTS));
    capture_active_ = true;
  }
  void end() {
    capture_active_ = false;
    GL(glEndTransformFeedback());
    query_active_ = false;
    GL(glEndQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN));
  }
  ~CaptureScope() {
    if (capture_active_) glEndTransformFeedback();
    if (query_active_) glEndQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN);
    glDisable(GL_RASTERIZER_DISCARD);
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, 0);
    glBindVertexArray(0);
    glUseProgram(0);
    glGetError();
  }
  CaptureScope(const CaptureScope&) = delete;
  CaptureScope& operator=(const CaptureScope&) = delete;

 private:
  GLuint transform_feedback_;
  bool capture_active_ = false;
  bool query_active_ = false;
};

}  // namespace

TransformFeedbackKernel::TransformFeedbackKernel(const Context& context,
                                                 std::string_view vertex_source,
                                                 const Defines& defines, std::string label)
    : state_(context.state()) {
  state_->ensure_current();
  const detail::ShaderStage vertex{GL_VERTEX_SHADER,
                                   detail::complete_source(vertex_source, GL_VERTEX_SHADER,
                                                           state_->info, defines, vertex_prelude()),
                                   std::string(vertex_source)};
  program_ = detail::transform_feedback_program(*state_, vertex, label);
  auto plan = std::make_shared<detail::CapturePlan>(detail::read_capture_plan(program_->id()));
  auto interface = std::make_shared<detail::ProgramInterface>(program_->interface());
  interface->outputs.clear();
  for (const auto& o : plan->outputs) interface->outputs.push_back(o.variable);
  plan_ = std::move(plan);
  interface_ = std::move(interface);
}

TransformFeedbackKernel::~TransformFeedbackKernel() = default;
TransformFeedbackKernel::TransformFeedbackKernel(TransformFeedbackKernel&&) noexcept = default;
TransformFeedbackKernel& TransformFeedbackKernel::operator=(TransformFeedbackKernel&&) noexcept =
    default;

const std::string& TransformFeedbackKernel::label() const {
  return program_->label();
}
bool TransformFeedbackKernel::captures_separately() const {
  return plan_->separate;
}

std::vector<KernelVariable> TransformFeedbackKernel::variables() const {
  std::vector<KernelVariable> vars;
  auto add = [&](KernelVariable::Kind kind, const std::string& name, const detail::GlslType& t,
                 std::int64_t array_size) {
    KernelVariable v;
    v.kind = kind;
    v.name = name;
    v.glsl_type = t.name;
    v.element = t.element;
    v.components = t.components();
    v.array_size = array_size;
    vars.push_back(v);
  };
  for (const auto& u : interface_->uniforms) {
    if (u.name.rfind("gpgpu_", 0) == 0) continue;
    add(u.type.is_sampler ? KernelVariable::Kind::Sampler
        : u.type.is_image ? KernelVariable::Kind::Image
                          : KernelVariable::Kind::Uniform,
        u.name, u.type, u.array_size);
  }
  for (const auto& v : interface_->inputs) add(KernelVariable::Kind::Input, v.name, v.type, 1);
  for (const auto& v : interface_->outputs) add(KernelVariable::Kind::Output, v.name, v.type, 1);
  return vars;
}

void TransformFeedbackKernel::run(const Args& args) {
  if (!state_ || !program_) throw Error("this TransformFeedbackKernel was moved from");
  state_->ensure_current();
  const auto& pi = *interface_;
  const auto& plan = *plan_;
  const std::string& name = program_->label();
  const auto& info = state_->info;
  const auto resolved = detail::resolve_args(pi, args, name, /*outputs_required=*/true);

  // 1. Check everything before touching the GPU, so a bad call changes nothing.
  std::vector<ArrayBinding> outputs;  // in capture order
  for (const auto& captured : plan.outputs) {
    for (auto [variable, arg] : resolved.outputs) {
      if (variable->name == captured.variable.name) {
        outputs.push_back(check_array(*arg, captured.variable.type, state_, true, name));
      }
    }
  }
  std::optional<std::size_t> count;
  bool disagree = false;
  std::string counts;
  for (const auto& o : outputs) {
    counts += fmt::format("{}{}={}", counts.empty() ? "" : ", ", o.arg->name, o.elements);
    if (count && *count != o.elements) disagree = true;
    if (!count) count = o.elements;
  }
  if (disagree) {
    throw SizeMismatchError(
        fmt::format("{}: the outputs disagree in their number of elements ({}); every output of a "
                    "transform-feedback kernel has one element per vertex",
                    name, counts));
  }
  const std::size_t n = count.value_or(0);
  if (n == 0) {
    throw ArgumentError(
        fmt::format("{}: the outputs are empty ({}); nothing to compute", name, counts));
  }
  if (n > static_cast<std::size_t>(std::numeric_limits<GLint>::max())) {
    throw LimitError(fmt::format("{}: {} elements exceed one draw call's {} vertices", name, n,
                                 std::numeric_limits<GLint>::max()));
  }
  std::vector<std::pair<const detail::StageVariable*, ArrayBinding>> inputs;
  for (auto [variable, arg] : resolved.inputs) {
    auto b = check_array(*arg, variable->type, state_, false, name);
    if (b.elements != n) {
      throw SizeMismatchError(fmt::format(
          "{}: input {} {} has {} elements ({} values), but the outputs have {} ({}); inputs and "
          "outputs must have the same number of elements",
          name, variable->type.name, arg->name, b.elements, arg->value.count(), n, counts));
    }
    inputs.emplace_back(variable, b);
  }
  std::set<const Buffer*> written_buffers;
  for (const auto& o : outputs) {
    if (o.buffer != nullptr && !written_buffers.insert(o.buffer).second) {
      throw ArgumentError(
          fmt::format("{}: the same Buffer is given to two outputs ('{}')", name, o.arg->name));
    }
  }
  for (const auto& [variable, b] : inputs) {
    if (b.buffer != nullptr && written_buffers.count(b.buffer)) {
      throw ArgumentError(fmt::format(
          "{}: input '{}' reads a Buffer that an output writes in the same run; OpenGL ES "
          "forbids it — write into another Buffer",
          name, b.arg->name));
    }
  }
  std::int64_t samplers = 0;
  for (auto [uniform, arg] : resolved.uniforms) {
    detail::check_uniform(*uniform, *arg, name);
    if (uniform->type.is_opaque()) {
      detail::check_texture_binding(*arg->value.texture(), *uniform, name);
      ++samplers;
    }
  }
  if (samplers > info.max_vertex_texture_image_units) {
    throw LimitError(
        fmt::format("{}: {} textures are bound but a vertex shader reads at most {} "
                    "(GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS)",
                    name, samplers, info.max_vertex_texture_image_units));
  }

  // 2. Upload host inputs; make the capture buffers.
  std::vector<detail::ScopedGlBuffer> temporaries;
  std::vector<GLuint> input_ids;
  for (const auto& [variable, b] : inputs) {
    if (b.buffer != nullptr) {
      input_ids.push_back(b.buffer->gl_name());
      continue;
    }
    const Arg& v = b.arg->value;
    const auto layout = packed_layout(b.type);
    const bool host_row_major = v.layout() == MatrixLayout::RowMajor;
    const std::size_t bytes = layout.device_bytes(n);
    if (layout.is_tight(host_row_major)) {
      temporaries.emplace_back(detail::create_gl_buffer(bytes, v.data(), GL_STATIC_DRAW));
    } else {
      std::vector<unsigned char> staging(bytes);
      detail::pack(v.data(), n, host_row_major, layout, staging.data());
      temporaries.emplace_back(detail::create_gl_buffer(bytes, staging.data(), GL_STATIC_DRAW));
    }
    input_ids.push_back(temporaries.back().id());
  }
  std::vector<GLuint> capture_ids;  // per transform-feedback binding
  std::vector<std::size_t> capture_bytes;
  if (plan.separate) {
    for (const auto& o : outputs) {
      const std::size_t bytes = n * 4 * static_cast<std::size_t>(o.type.components());
      if (o.buffer != nullptr) {
        capture_ids.push_back(o.buffer->gl_name());
      } else {
        temporaries.emplace_back(detail::create_gl_buffer(bytes, nullptr, GL_STREAM_READ));
        capture_ids.push_back(temporaries.back().id());
      }
      capture_bytes.push_back(bytes);
    }
  } else {
    const std::size_t bytes = n * 4 * plan.record_values;
    temporaries.emplace_back(detail::create_gl_buffer(bytes, nullptr, GL_STREAM_READ));
    capture_ids.push_back(temporaries.back().id());
    capture_bytes.push_back(bytes);
  }

  // 3. Bind, set uniforms, draw one point per element with rasterisation discarded.
  auto vertex_array = detail::ScopedVertexArray::make();
  auto transform_feedback = detail::ScopedTransformFeedback::make();
  auto primitives = detail::ScopedQuery::make();
  GL(glUseProgram(program_->id()));
  GLuint primitives_written = 0;
  {
    // Surfaceless contexts have no default framebuffer, and drawing needs a complete one
    // even when rasterisation is discarded.
    const detail::Framebuffer no_pixels({}, name);
    CaptureScope scope(transform_feedback.id(), vertex_array.id());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const auto& type = inputs[i].second.type;
      const auto stride = static_cast<GLsizei>(4 * type.components());
      GL(glBindBuffer(GL_ARRAY_BUFFER, input_ids[i]));
      for (int column = 0; column < type.columns; ++column) {
        // A matrix fills one attribute location per column.
        const auto location = static_cast<GLuint>(inputs[i].first->location + column);
        const auto* offset =
            reinterpret_cast<const void*>(static_cast<std::uintptr_t>(4 * column * type.rows));
        GL(glEnableVertexAttribArray(location));
        if (type.element == ElementType::Float32) {
          GL(glVertexAttribPointer(location, type.rows, GL_FLOAT, GL_FALSE, stride, offset));
        } else {
          // Integers arrive exactly, never converted to float.
          GL(glVertexAttribIPointer(location, type.rows,
                                    type.element == ElementType::Int32 ? GL_INT : GL_UNSIGNED_INT,
                                    stride, offset));
        }
      }
    }
    GL(glBindBuffer(GL_ARRAY_BUFFER, 0));
    GLuint texture_unit = 0;
    for (auto [uniform, arg] : resolved.uniforms) {
      detail::set_uniform(*uniform, *arg, texture_unit, name);
    }
    if (const auto* u = pi.find_uniform("gpgpu_count")) {
      GL(glUniform1i(u->location, static_cast<GLint>(n)));
    }
    for (std::size_t i = 0; i < capture_ids.size(); ++i) {
      GL(glBindBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, static_cast<GLuint>(i), capture_ids[i], 0,
                           static_cast<GLsizeiptr>(capture_bytes[i])));
    }
    detail::GpuTimer timer(*state_, timing_);
    scope.begin(primitives.id());
    GL(glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(n)));
    scope.end();
    last_gpu_ns_ = timer.stop();
    for (std::size_t i = 0; i < capture_ids.size(); ++i) {
      GL(glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, static_cast<GLuint>(i), 0));
    }
  }
  GL(glGetQueryObjectuiv(primitives.id(), GL_QUERY_RESULT, &primitives_written));
  if (primitives_written != n) {
    throw GLError(fmt::format("{}: transform feedback captured {} of {} elements", name,
                              primitives_written, n),
                  0);
  }

  // 4. Read every host output (and, when interleaved, every Buffer output) into staging
  // first, then commit: if a read-back fails, no caller array has changed.
  std::vector<unsigned char> interleaved;
  if (!plan.separate) {
    interleaved.resize(capture_bytes[0]);
    detail::read_gl_buffer(capture_ids[0], 0, capture_bytes[0], interleaved.data());
  }
  struct Result {
    const ArrayBinding* binding;
    std::vector<unsigned char> values;  // tightly packed, column-major matrices
  };
  std::vector<Result> results;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& o = outputs[i];
    if (plan.separate && o.buffer != nullptr) continue;  // written in place on the GPU
    std::vector<unsigned char> values(n * 4 * static_cast<std::size_t>(o.type.components()));
    if (plan.separate) {
      detail::read_gl_buffer(capture_ids[i], 0, values.size(), values.data());
    } else {
      auto layout = packed_layout(o.type);
      layout.offset = static_cast<std::int64_t>(4 * plan.outputs[i].offset_values);
      layout.array_stride = static_cast<std::int64_t>(4 * plan.record_values);
      detail::unpack(interleaved.data(), n, false, layout, values.data());
    }
    results.push_back({&o, std::move(values)});
  }
  for (auto& r : results) {
    if (r.binding->buffer != nullptr) {
      detail::write_gl_buffer(r.binding->buffer->gl_name(), 0, r.values.size(), r.values.data());
      continue;
    }
    const Arg& v = r.binding->arg->value;
    detail::unpack(r.values.data(), n, v.layout() == MatrixLayout::RowMajor,
                   packed_layout(r.binding->type), v.writable_data());
  }
}

}  // namespace gpgpu
