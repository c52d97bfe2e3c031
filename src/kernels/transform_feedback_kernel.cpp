#include "gpgpu/transform_feedback_kernel.hpp"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "binding/binding.hpp"
#include "binding/layout_pack.hpp"
#include "binding/run_checks.hpp"
#include "binding/texture_binding.hpp"
#include "gl/framebuffer.hpp"
#include "gl/gl_name.hpp"
#include "gl/gpu_timer.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/texture.hpp"
#include "kernels/kernel_core.hpp"
#include "shader/glsl_helpers.hpp"
#include "shader/glsl_source.hpp"
#include "shader/program.hpp"
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
  GLuint id = 0;                   // where it lives for the run (set by the upload step)
};

ArrayBinding check_array(const NamedArg& arg, const detail::GlslType& type,
                         const detail::ContextState* owner, bool is_output,
                         const std::string& label) {
  const char* what = is_output ? "output" : "input";
  const Arg& v = arg.value;
  ArrayBinding b;
  b.arg = &arg;
  b.type = type;
  if (v.kind() == Arg::Kind::DeviceBuffer) {
    detail::check_buffer_arg(arg, owner, label, fmt::format("{} '{}'", what, arg.name));
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
  // Counts the captured points in `query` (unless 0) while capturing.
  void begin(GLuint query) {
    if (query != 0) {
      GL(glBeginQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, query));
      query_active_ = true;
    }
    GL(glBeginTransformFeedback(GL_POINTS));
    capture_active_ = true;
  }
  void end() {
    capture_active_ = false;
    GL(glEndTransformFeedback());
    if (query_active_) {
      query_active_ = false;
      GL(glEndQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN));
    }
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
    : state_(context.state()), label_(std::move(label)) {
  state_->ensure_current();
  const detail::ShaderStage vertex{GL_VERTEX_SHADER,
                                   detail::complete_source(vertex_source, GL_VERTEX_SHADER,
                                                           state_->info, defines, vertex_prelude()),
                                   std::string(vertex_source)};
  program_ = detail::transform_feedback_program(*state_, vertex, label_);
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

const detail::Program& TransformFeedbackKernel::program() const {
  if (!state_ || !program_ || !interface_ || !plan_) {
    throw Error(
        "this TransformFeedbackKernel was moved from and has no program; use the "
        "kernel it was moved into");
  }
  return *program_;
}

const std::string& TransformFeedbackKernel::label() const {
  program();
  return label_;
}
bool TransformFeedbackKernel::captures_separately() const {
  program();
  return plan_->separate;
}

std::vector<KernelVariable> TransformFeedbackKernel::variables() const {
  program();
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
  start(args, false);
}

PendingRun TransformFeedbackKernel::run_async(const Args& args) {
  return start(args, true);
}

namespace {

// Everything a run decides before it touches the GPU.
struct CapturePlanForRun {
  std::vector<ArrayBinding> outputs;  // in capture order
  std::vector<std::pair<const detail::StageVariable*, ArrayBinding>> inputs;
  std::size_t n = 0;
  bool host_outputs = false;  // some output comes back to the host
};

// validate + plan: outputs set the element count; inputs must agree; no Buffer is both read
// and written; textures fit the vertex stage.
CapturePlanForRun plan_capture(const detail::ResolvedArgs& resolved,
                               const detail::CapturePlan& plan, const detail::ContextState* owner,
                               const DeviceInfo& info, const std::string& name) {
  CapturePlanForRun run;
  for (const auto& captured : plan.outputs) {
    for (auto [variable, arg] : resolved.outputs) {
      if (variable->name == captured.variable.name) {
        run.outputs.push_back(check_array(*arg, captured.variable.type, owner, true, name));
      }
    }
  }
  std::vector<std::pair<std::string, std::size_t>> named_counts;
  for (const auto& o : run.outputs) named_counts.emplace_back(o.arg->name, o.elements);
  const auto counts = detail::agree_on_count(named_counts);
  if (counts.disagree) {
    throw SizeMismatchError(
        fmt::format("{}: the outputs disagree in their number of elements ({}); every output of a "
                    "transform-feedback kernel has one element per vertex",
                    name, counts.text));
  }
  run.n = counts.common.value_or(0);
  if (run.n == 0) {
    throw ArgumentError(
        fmt::format("{}: the outputs are empty ({}); nothing to compute", name, counts.text));
  }
  if (run.n > static_cast<std::size_t>(std::numeric_limits<GLint>::max())) {
    throw LimitError(fmt::format("{}: {} elements exceed one draw call's {} vertices", name, run.n,
                                 std::numeric_limits<GLint>::max()));
  }
  for (auto [variable, arg] : resolved.inputs) {
    auto b = check_array(*arg, variable->type, owner, false, name);
    if (b.elements != run.n) {
      throw SizeMismatchError(fmt::format(
          "{}: input {} {} has {} elements ({} values), but the outputs have {} ({}); inputs and "
          "outputs must have the same number of elements",
          name, variable->type.name, arg->name, b.elements, arg->value.count(), run.n,
          counts.text));
    }
    run.inputs.emplace_back(variable, b);
  }
  std::set<const Buffer*> written_buffers;
  for (const auto& o : run.outputs) {
    if (o.buffer == nullptr) run.host_outputs = true;
    if (o.buffer != nullptr && !written_buffers.insert(o.buffer).second) {
      throw ArgumentError(
          fmt::format("{}: the same Buffer is given to two outputs ('{}')", name, o.arg->name));
    }
  }
  for (const auto& [variable, b] : run.inputs) {
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
  return run;
}

// upload: host inputs into pooled temporaries (column-major, tightly packed vertices).
void upload_inputs(CapturePlanForRun& run, detail::RunTransfers& io) {
  for (auto& [variable, b] : run.inputs) {
    if (b.buffer != nullptr) {
      b.id = b.buffer->gl_name();
      continue;
    }
    const Arg& v = b.arg->value;
    const auto layout = packed_layout(b.type);
    const bool host_row_major = v.layout() == MatrixLayout::RowMajor;
    const std::size_t bytes = layout.device_bytes(run.n);
    b.id = io.temporary(bytes);
    if (layout.is_tight(host_row_major)) {
      io.upload(b.id, v.data(), bytes);
    } else {
      std::vector<unsigned char> packed(bytes);
      detail::pack(v.data(), run.n, host_row_major, layout, packed.data());
      io.upload(b.id, packed.data(), bytes);
    }
  }
}

// Points the vertex array's attributes at the inputs (a matrix takes one location per column).
void bind_inputs(const CapturePlanForRun& run) {
  for (const auto& input : run.inputs) {
    // Named, not a structured binding: GL(...)'s lambda captures them (clang before C++20's
    // P1091 implementation cannot capture structured bindings).
    const detail::StageVariable* variable = input.first;
    const ArrayBinding& b = input.second;
    const auto& type = b.type;
    const auto stride = static_cast<GLsizei>(4 * type.components());
    GL(glBindBuffer(GL_ARRAY_BUFFER, b.id));
    for (int column = 0; column < type.columns; ++column) {
      const auto location = static_cast<GLuint>(variable->location + column);
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
}

// Lets go of the input buffers again, so that the kept vertex array holds none of them.
void unbind_inputs(const CapturePlanForRun& run) noexcept {
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  for (const auto& [variable, b] : run.inputs) {
    for (int column = 0; column < b.type.columns; ++column) {
      const auto location = static_cast<GLuint>(variable->location + column);
      glDisableVertexAttribArray(location);
      glVertexAttribPointer(location, 4, GL_FLOAT, GL_FALSE, 0, nullptr);
    }
  }
  glGetError();
}

// Splits interleaved records on the GPU: values [offset, offset + width) of each record of
// `record` values go to their own tightly packed buffer. Bit-exact (copied as uints).
constexpr std::string_view deinterleave_source = R"(
layout(local_size_x = gpgpu_group_size) in;
layout(std430, binding = 0) readonly buffer Records { uint records[]; };
layout(std430, binding = 1) writeonly buffer Values { uint values[]; };
uniform uint record;
uniform uint first;
uniform uint width;
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  values[i] = records[(i / width) * record + first + i % width];
}
)";

// The records of an interleaved capture, split into one tight array per output: a Buffer
// output receives its values in place, a host output in a temporary that is downloaded.
void split_records(detail::ContextState& state, const detail::CapturePlan& plan,
                   CapturePlanForRun& run, GLuint records, detail::RunTransfers& io) {
  const detail::ShaderStage stage{
      GL_COMPUTE_SHADER,
      detail::complete_source(deinterleave_source, GL_COMPUTE_SHADER, state.info, {},
                              "uniform uint gpgpu_count;\n"
                              "uniform uint gpgpu_row_stride;\n"
                              "uint gpgpu_index() {\n"
                              "  return gl_GlobalInvocationID.y * gpgpu_row_stride +\n"
                              "         gl_GlobalInvocationID.x;\n"
                              "}\n"),
      std::string(deinterleave_source)};
  const auto program = detail::cached_program(state, "tf-deinterleave\n" + stage.source, {stage},
                                              {}, "gpgpu transform-feedback split");
  const auto& pi = program->interface();
  const auto max_x = static_cast<std::size_t>(state.info.max_compute_work_group_count[0]);
  const auto group = static_cast<std::size_t>(pi.local_size[0]);  // gpgpu_group_size
  GL(glUseProgram(program->id()));
  GL(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, records));
  for (std::size_t i = 0; i < run.outputs.size(); ++i) {
    auto& o = run.outputs[i];
    const auto width = static_cast<std::size_t>(o.type.components());
    const std::size_t values = run.n * width;
    o.id = o.buffer != nullptr ? o.buffer->gl_name() : io.temporary(values * 4);
    const std::size_t groups = (values + group - 1) / group;
    const std::size_t rows = (groups + max_x - 1) / max_x;
    const std::size_t columns = (groups + rows - 1) / rows;
    GL(glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 1, o.id, 0,
                         static_cast<GLsizeiptr>(values * 4)));
    detail::set_internal_uint(pi, "record", static_cast<GLuint>(plan.record_values));
    detail::set_internal_uint(pi, "first", static_cast<GLuint>(plan.outputs[i].offset_values));
    detail::set_internal_uint(pi, "width", static_cast<GLuint>(width));
    detail::set_internal_uint(pi, "gpgpu_count", static_cast<GLuint>(values));
    detail::set_internal_uint(pi, "gpgpu_row_stride", static_cast<GLuint>(columns * group));
    GL(glDispatchCompute(static_cast<GLuint>(columns), static_cast<GLuint>(rows), 1));
  }
  GL(glMemoryBarrier(GL_ALL_BARRIER_BITS));
  GL(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0));
  GL(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, 0));
  GL(glUseProgram(0));
}

// Without compute shaders (OpenGL ES 3.0, WebGL2) the records come back whole and are split
// on the host as they arrive; an output into a Buffer would need the GPU split and is refused.
void split_records_on_host(const detail::CapturePlan& plan, const CapturePlanForRun& run,
                           GLuint records, detail::RunTransfers& io, const std::string& name) {
  struct Piece {
    std::size_t offset, components;
    detail::ArrayLayout layout;
    bool row_major;
    void* out;
  };
  std::vector<Piece> pieces;
  for (std::size_t i = 0; i < run.outputs.size(); ++i) {
    const auto& o = run.outputs[i];
    if (o.buffer != nullptr) {
      throw UnsupportedError(fmt::format(
          "{}: output '{}' goes to a Buffer, but the kernel's {} outputs are captured "
          "interleaved (they exceed the device's separate-capture limits), and WebGL2 has no "
          "compute shaders to split them on the GPU; capture fewer or smaller outputs per "
          "kernel, or read them into arrays",
          name, o.arg->name, plan.outputs.size()));
    }
    pieces.push_back({plan.outputs[i].offset_values, static_cast<std::size_t>(o.type.components()),
                      packed_layout(o.type), o.arg->value.layout() == MatrixLayout::RowMajor,
                      o.arg->value.writable_data()});
  }
  const std::size_t n = run.n, record = plan.record_values;
  io.download_then(records, 0, n * record * 4, [n, record, pieces](const unsigned char* bytes) {
    for (const auto& p : pieces) {
      std::vector<unsigned char> tight(n * p.components * 4);
      for (std::size_t e = 0; e < n; ++e) {
        std::memcpy(tight.data() + e * p.components * 4, bytes + (e * record + p.offset) * 4,
                    p.components * 4);
      }
      if (p.layout.is_tight(p.row_major)) {
        std::memcpy(p.out, tight.data(), tight.size());
      } else {
        detail::unpack(tight.data(), n, p.row_major, p.layout, p.out);
      }
    }
  });
}

// Where the draw captures to: a buffer per output (a Buffer output is written in place), or
// one buffer of interleaved records that split_records() takes apart afterwards.
struct CaptureTargets {
  std::vector<GLuint> ids;
  std::vector<std::size_t> bytes;
};

CaptureTargets allocate_captures(const detail::CapturePlan& plan, CapturePlanForRun& run,
                                 detail::RunTransfers& io) {
  CaptureTargets targets;
  if (!plan.separate) {
    const std::size_t bytes = run.n * 4 * plan.record_values;
    targets.ids.push_back(io.temporary(bytes));
    targets.bytes.push_back(bytes);
    return targets;
  }
  for (auto& o : run.outputs) {
    const std::size_t bytes = run.n * 4 * static_cast<std::size_t>(o.type.components());
    o.id = o.buffer != nullptr ? o.buffer->gl_name() : io.temporary(bytes);
    targets.ids.push_back(o.id);
    targets.bytes.push_back(bytes);
  }
  return targets;
}

// A short capture is the driver's failure, never silently fewer results.
void check_capture_count(GLuint query, std::size_t n, const std::string& name) {
  GLuint written = 0;
  GL(glGetQueryObjectuiv(query, GL_QUERY_RESULT, &written));
  if (written != n) {
    throw DriverError(
        fmt::format("{}: transform feedback captured {} of {} elements "
                    "(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN); the driver dropped "
                    "some",
                    name, written, n));
  }
}

// commit: host outputs come back (unpacked when a matrix is asked for row-major).
void download_host_outputs(const CapturePlanForRun& run, detail::RunTransfers& io) {
  const std::size_t n = run.n;
  for (const auto& o : run.outputs) {
    if (o.buffer != nullptr) continue;
    const Arg& v = o.arg->value;
    const auto layout = packed_layout(o.type);
    const bool host_row_major = v.layout() == MatrixLayout::RowMajor;
    const std::size_t bytes = layout.device_bytes(n);
    if (layout.is_tight(host_row_major)) {
      io.download(o.id, 0, v.writable_data(), bytes);
    } else {
      io.download_then(
          o.id, 0, bytes,
          [n, host_row_major, layout, out = v.writable_data()](const unsigned char* device) {
            detail::unpack(device, n, host_row_major, layout, out);
          });
    }
  }
}

}  // namespace

PendingRun TransformFeedbackKernel::start(const Args& args, bool async) {
  const detail::Program& program = this->program();
  const auto started = std::chrono::steady_clock::now();
  state_->ensure_current();
  state_->refuse_while_capturing("a TransformFeedbackKernel run");
  const auto& pi = *interface_;
  const auto& plan = *plan_;
  const std::string& name = label_;
  const auto resolved = detail::resolve_args(pi, args, name, /*outputs_required=*/true);
  auto run = plan_capture(resolved, plan, state_.get(), state_->info, name);
  const std::size_t n = run.n;

  detail::RunTransfers io(*state_);
  upload_inputs(run, io);
  const CaptureTargets targets = allocate_captures(plan, run, io);

  // launch: one point per element with rasterisation discarded.
  make_objects();
  // The capture count, asked for only when results come back to the host (a run whose
  // outputs stay on the GPU must not wait for it). An async run gets a query of its own,
  // read when it is waited for, so that a later run cannot overwrite its answer.
  // WebGL2 answers a query only after the page has returned to the browser: the count is
  // not asked for there (PlatformTraits::waitable_queries).
  std::shared_ptr<detail::GlQuery> own_query;
  GLuint query = 0;
  if (run.host_outputs && state_->platform.waitable_queries) {
    if (async)
      own_query =
          std::make_shared<detail::GlQuery>(detail::make_gl_name<detail::GlKind::Query>(*state_));
    query = async ? own_query->id() : primitives_.id();
  }
  GL(glUseProgram(program.id()));
  {
    // Surfaceless contexts have no default framebuffer, and drawing needs a complete one
    // even when rasterisation is discarded.
    // (OpenGL ES 3.0 has no framebuffers without attachments, but WebGL2's default
    // framebuffer, the canvas, is complete: framebuffer 0.)
    const detail::FramebufferScope no_pixels(state_->platform.gles31 ? no_pixels_.id() : 0, {},
                                             name);
    CaptureScope scope(transform_feedback_.id(), vertex_array_.id());
    bind_inputs(run);
    for (const auto& input : run.inputs)
      state_->engine_while_current().note_gpu_use(input.second.id);
    detail::set_uniforms(resolved, name);
    detail::set_internal_int(pi, "gpgpu_count", static_cast<GLint>(n));
    for (std::size_t i = 0; i < targets.ids.size(); ++i) {
      GL(glBindBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, static_cast<GLuint>(i), targets.ids[i], 0,
                           static_cast<GLsizeiptr>(targets.bytes[i])));
    }
    detail::GpuTimer timer(*state_, timing_);
    scope.begin(query);
    GL(glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(n)));
    scope.end();
    last_gpu_ns_ = timer.stop();
    // An upload queued right after this into a target must not land first (NVIDIA's driver
    // let it: TransformFeedback.AnUploadAfterARunIsWhatTheNextRunReads; a glMemoryBarrier
    // here did not help, measured).
    for (const GLuint id : targets.ids) state_->engine_while_current().note_gpu_use(id);
    for (std::size_t i = 0; i < targets.ids.size(); ++i) {
      GL(glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, static_cast<GLuint>(i), 0));
    }
    unbind_inputs(run);
    detail::detach_buffer_texels(*state_);
  }
  state_->wait_within_timeout(started, name);

  const bool split_on_gpu = !plan.separate && state_->platform.gles31;
  if (split_on_gpu) split_records(*state_, plan, run, targets.ids[0], io);
  // Before anything reaches the caller's arrays when the run is synchronous; an async run
  // keeps its own query alive until it is waited for.
  if (query != 0 && !async) check_capture_count(query, n, name);
  if (query != 0 && async) {
    io.then([query, own_query, n, name] { check_capture_count(query, n, name); });
  }
  if (!plan.separate && !split_on_gpu) {
    split_records_on_host(plan, run, targets.ids[0], io, name);
  } else {
    download_host_outputs(run, io);
  }
  if (async) return io.finish_async();
  io.finish();
  return {};
}

void TransformFeedbackKernel::make_objects() {
  if (vertex_array_) return;
  vertex_array_ = detail::make_gl_name<detail::GlKind::VertexArray>(*state_);
  transform_feedback_ = detail::make_gl_name<detail::GlKind::TransformFeedback>(*state_);
  primitives_ = detail::make_gl_name<detail::GlKind::Query>(*state_);
  no_pixels_ = detail::make_gl_name<detail::GlKind::Framebuffer>(*state_);
}

}  // namespace gpgpu
