#include "gpgpu/compute_kernel.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "binding/binding.hpp"
#include "binding/layout_pack.hpp"
#include "binding/run_checks.hpp"
#include "binding/texture_binding.hpp"
#include "gl/context_state.hpp"
#include "gl/gpu_timer.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/error.hpp"
#include "kernels/dispatch_record.hpp"
#include "kernels/kernel_core.hpp"
#include "shader/glsl_source.hpp"
#include "shader/program.hpp"
#include "shader/program_batch.hpp"

namespace gpgpu {

namespace {

// Helpers every compute kernel can call; unused ones cost nothing (the uniforms are
// dropped by the compiler, and gpgpu then knows the kernel does not use them).
constexpr std::string_view compute_prelude =
    "uniform uint gpgpu_count;\n"
    "uniform uint gpgpu_row_stride;\n"
    "uniform uint gpgpu_pass_begin;\n"
    "uniform uint gpgpu_pass_end;\n"
    "uint gpgpu_index() {\n"
    "  return gl_GlobalInvocationID.y * gpgpu_row_stride + gl_GlobalInvocationID.x;\n"
    "}\n";

detail::ArrayLayout layout_of(const detail::StorageBlock& b) {
  detail::ArrayLayout l;
  l.rows = b.element.rows;
  l.columns = b.element.columns;
  l.offset = b.offset;
  l.array_stride = b.array_stride;
  l.matrix_stride = b.matrix_stride;
  l.device_row_major = b.row_major;
  return l;
}

// One storage block's binding for one run: a user's Buffer, or a host array placed in a
// pooled temporary.
struct BlockBinding {
  const detail::StorageBlock* block = nullptr;
  const NamedArg* arg = nullptr;
  std::size_t elements = 0;  // GLSL elements (vec3s, mat4s...)
  std::size_t bytes = 0;     // bytes bound
  GLuint id = 0;             // set by the upload step
};

// Everything a run decides before it touches the GPU.
struct ComputePlan {
  std::vector<BlockBinding> blocks;
  Size3 groups;
  std::size_t count = 0;       // gpgpu_count
  std::size_t row_stride = 0;  // gpgpu_row_stride
};

struct KernelShape {
  const detail::ProgramInterface& interface;
  const DeviceInfo& info;
  const detail::ContextState* owner;
  const std::string& label;
};

// validate: one storage block's argument, without GL.
BlockBinding check_block(const detail::StorageBlock& block, const NamedArg& arg,
                         const KernelShape& k) {
  const std::string& name = k.label;
  BlockBinding bb;
  bb.block = &block;
  bb.arg = &arg;
  const Arg& v = arg.value;
  if (v.kind() == Arg::Kind::DeviceBuffer) {
    detail::check_buffer_arg(arg, k.owner, name, fmt::format("'{}'", arg.name));
    bb.bytes = v.buffer()->bytes();
    if (block.single_array) {
      detail::check_element_type(arg, block.element, name, "storage array");
      const auto offset = static_cast<std::size_t>(block.offset);
      const auto stride = static_cast<std::size_t>(block.array_stride);
      bb.elements = stride > 0 && bb.bytes > offset ? (bb.bytes - offset) / stride : 0;
    }
    if (bb.bytes < static_cast<std::size_t>(block.fixed_size) && block.array_size != 0) {
      throw SizeMismatchError(fmt::format("{}: buffer block {} needs {} bytes; the Buffer has {}",
                                          name, block.name, block.fixed_size, bb.bytes));
    }
  } else if (v.kind() == Arg::Kind::HostMemory) {
    // A mapped HostBuffer binds as it is: the kernel reaches the host memory over the bus.
    if (v.host_owner() != k.owner) {
      throw ArgumentError(
          fmt::format("{}: the HostBuffer for '{}' belongs to another Context", name, arg.name));
    }
    if (!block.single_array) {
      throw ArgumentError(fmt::format(
          "{}: buffer block {} has members {{{}}}; a HostBuffer binds only to a block with a "
          "single array member",
          name, block.name, fmt::join(block.members, ", ")));
    }
    detail::check_element_type(arg, block.element, name, "storage array");
    bb.bytes = v.count() * element_size;
    const auto stride = static_cast<std::size_t>(block.array_stride);
    bb.elements = stride > 0 ? bb.bytes / stride : 0;
    if (bb.elements == 0) {
      throw SizeMismatchError(
          fmt::format("{}: the HostBuffer for '{}' holds less than one element of {}", name,
                      arg.name, block.element.name));
    }
  } else if (v.kind() == Arg::Kind::HostArray) {
    if (!block.single_array) {
      throw ArgumentError(fmt::format(
          "{}: buffer block {} has members {{{}}}; a host array binds only to a block with a "
          "single array member; bind a gpgpu::Buffer holding the block's bytes instead",
          name, block.name, fmt::join(block.members, ", ")));
    }
    detail::check_element_type(arg, block.element, name, "storage array");
    bb.elements = detail::whole_elements(arg, block.element, name, "storage array");
    if (block.array_size != 0 && bb.elements != static_cast<std::size_t>(block.array_size)) {
      throw SizeMismatchError(
          fmt::format("{}: '{}' is declared {} {}[{}] but {} elements were given", name, arg.name,
                      block.element.name, block.member_name, block.array_size, bb.elements));
    }
    if (bb.elements == 0) {
      throw SizeMismatchError(fmt::format(
          "{}: '{}' is empty; storage arrays need at least one element", name, arg.name));
    }
    bb.bytes = layout_of(block).device_bytes(bb.elements);
  } else {
    throw TypeMismatchError(
        fmt::format("{}: buffer block {} takes a host array, a Buffer or a HostBuffer, not {}",
                    name, block.name, v.describe()));
  }
  if (static_cast<std::int64_t>(bb.bytes) > k.info.max_shader_storage_block_size) {
    throw LimitError(fmt::format(
        "{}: '{}' needs {} bytes but the device binds at most {} bytes to one storage block "
        "(GL_MAX_SHADER_STORAGE_BLOCK_SIZE); split the array",
        name, arg.name, bb.bytes, k.info.max_shader_storage_block_size));
  }
  return bb;
}

// gpgpu_count is a uint: no dimension, nor their product, may pass 2^32 - 1 (checked before
// anything is rounded up to work groups, where a huge count would wrap around).
void check_item_count(Size3 size, const std::string& name) {
  constexpr std::size_t max = 0xFFFFFFFFull;
  if (size.x > max || size.y > max || size.z > max || size.x * size.y > max ||
      size.x * size.y * size.z > max) {
    throw LimitError(
        fmt::format("{}: {} x {} x {} work items exceed 2^32 - 1 (gpgpu_count is a uint)", name,
                    size.x, size.y, size.z));
  }
}

// validate: uniform values, and every Texture for a sampler or image (empty, destroyed, of
// another Context, of the wrong kind, too many), before anything is uploaded.
void check_uniforms_and_textures(const detail::ResolvedArgs& resolved, const KernelShape& k) {
  std::int64_t samplers = 0;
  for (auto [uniform, arg] : resolved.uniforms) {
    detail::check_uniform(*uniform, *arg, k.label);
    if (!uniform->type.is_opaque()) continue;
    // Buffer texels were checked by check_uniform; they take a texture unit all the same.
    if (!detail::is_buffer_sampler(uniform->type.gl)) {
      detail::check_texture_binding(*arg->value.texture(), *uniform, k.label);
    }
    if (uniform->type.is_sampler) ++samplers;
  }
  if (samplers > k.info.max_combined_texture_image_units) {
    throw LimitError(
        fmt::format("{}: {} textures are bound to samplers but the device has {} texture units "
                    "(GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS); use fewer textures",
                    k.label, samplers, k.info.max_combined_texture_image_units));
  }
}

// validate: every argument (blocks, distinct bindings, uniforms), without GL.
std::vector<BlockBinding> check_arguments(const detail::ResolvedArgs& resolved,
                                          const KernelShape& k) {
  std::vector<BlockBinding> blocks;
  for (auto [block, arg] : resolved.blocks) blocks.push_back(check_block(*block, *arg, k));
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    for (std::size_t j = i + 1; j < blocks.size(); ++j) {
      if (blocks[i].block->binding == blocks[j].block->binding) {
        throw ArgumentError(fmt::format(
            "{}: buffer blocks {} and {} share binding {}; give each its own "
            "layout(std430, binding = N) (OpenGL ES cannot rebind storage blocks)",
            k.label, blocks[i].block->name, blocks[j].block->name, blocks[i].block->binding));
      }
    }
  }
  check_uniforms_and_textures(resolved, k);
  return blocks;
}

// plan: the number of items when run() was given none — the arrays' common length.
std::size_t derived_items(const std::vector<BlockBinding>& blocks, const std::string& name) {
  std::vector<std::pair<std::string, std::size_t>> counts;
  for (const auto& bb : blocks) {
    if (bb.block->single_array) counts.emplace_back(bb.arg->name, bb.elements);
  }
  const auto c = detail::agree_on_count(counts, " ");
  if (!c.common) {
    throw ArgumentError(fmt::format(
        "{}: no array argument to take the number of work items from; pass it to run()", name));
  }
  if (c.disagree) {
    throw SizeMismatchError(fmt::format(
        "{}: the arrays disagree in length ( {} ), so the number of work items is ambiguous; "
        "pass it to run()",
        name, c.text));
  }
  return *c.common;
}

// plan: work groups for `items` in one dimension, split into rows past the x limit.
Size3 groups_for_items(std::size_t items, std::size_t lx, const KernelShape& k) {
  const auto max_x = static_cast<std::size_t>(k.info.max_compute_work_group_count[0]);
  const auto max_y = static_cast<std::size_t>(k.info.max_compute_work_group_count[1]);
  if (items == 0) throw ArgumentError(fmt::format("{}: zero work items", k.label));
  const std::size_t needed = (items + lx - 1) / lx;
  if (needed <= max_x) return {needed, 1, 1};
  if (k.interface.find_uniform("gpgpu_row_stride") == nullptr) {
    throw LimitError(fmt::format(
        "{}: {} items need {} work groups, more than the device's {} in x; index with "
        "gpgpu_index() instead of gl_GlobalInvocationID.x so gpgpu can split the dispatch "
        "into rows",
        k.label, items, needed, max_x));
  }
  const std::size_t rows = (needed + max_x - 1) / max_x;
  if (rows > max_y) {
    throw LimitError(
        fmt::format("{}: {} items exceed what one dispatch can cover ({} x {} groups of {})",
                    k.label, items, max_x, max_y, lx));
  }
  return {(needed + rows - 1) / rows, rows, 1};
}

}  // namespace

namespace {

// What a compute kernel is compiled from and cached under (for the constructor and precompile).
detail::ProgramRequest compute_request(const detail::ContextState& state, std::string_view source,
                                       const Defines& defines, const std::string& label) {
  detail::ShaderStage stage{
      GL_COMPUTE_SHADER,
      detail::complete_source(source, GL_COMPUTE_SHADER, state.info, defines, compute_prelude),
      std::string(source)};
  std::string key = "compute\n" + stage.source;
  return {std::move(key), {std::move(stage)}, {}, label};
}

void refuse_compute(const detail::ContextState& state) {
  detail::refuse_without(state.platform.gles31, state, "a ComputeKernel",
                         "compute shaders need OpenGL ES 3.1 and WebGL2 is OpenGL ES 3.0; write "
                         "the kernel as a TransformFeedbackKernel or a FragmentKernel");
}

}  // namespace

ComputeKernel::ComputeKernel(const Context& context, std::string_view source,
                             const Defines& defines, std::string label)
    : state_(context.state()), label_(std::move(label)) {
  state_->ensure_current();
  refuse_compute(*state_);
  auto request = compute_request(*state_, source, defines, label_);
  if (state_->compile_batches > 0 && !state_->programs.find(request.key)) {
    state_->batched_programs.push_back(request);
    deferred_ = std::make_shared<const detail::ProgramRequest>(std::move(request));
    return;
  }
  program_ = detail::cached_program(*state_, request.key, request.stages, request.options, label_);
}

CompileBatch::CompileBatch(const Context& context) : state_(context.state()) {
  ++state_->compile_batches;
}

CompileBatch::~CompileBatch() {
  if (--state_->compile_batches > 0) return;
  try {
    compile();
  } catch (const Error&) {
    // each kernel compiles alone at its first use and reports its own error there
  }
  state_->batched_programs.clear();
}

std::size_t CompileBatch::compile() {
  std::vector<detail::ProgramRequest> requests;
  requests.swap(state_->batched_programs);
  if (requests.empty()) return 0;
  state_->ensure_current();
  // Kernels made twice from one source are compiled once.
  std::vector<detail::ProgramRequest> unique;
  for (auto& r : requests) {
    const bool seen = std::any_of(unique.begin(), unique.end(),
                                  [&](const detail::ProgramRequest& u) { return u.key == r.key; });
    if (!seen) unique.push_back(std::move(r));
  }
  return detail::compile_together(*state_, unique);
}

std::size_t precompile(const Context& context, std::span<const KernelSource> kernels) {
  auto& state = *context.state();
  state.ensure_current();
  refuse_compute(state);
  std::vector<detail::ProgramRequest> requests;
  for (const auto& k : kernels) {
    requests.push_back(compute_request(state, k.source, k.defines, k.label));
  }
  return detail::compile_together(state, requests);
}

ComputeKernel::~ComputeKernel() = default;
ComputeKernel::ComputeKernel(ComputeKernel&&) noexcept = default;
ComputeKernel& ComputeKernel::operator=(ComputeKernel&&) noexcept = default;

const detail::Program& ComputeKernel::program() const {
  if (state_ && !program_ && deferred_) {
    state_->ensure_current();
    const detail::ProgramRequest& r = *deferred_;
    program_ = detail::cached_program(*state_, r.key, r.stages, r.options, label_);
    deferred_.reset();
  }
  if (!state_ || !program_) {
    throw Error(
        "this ComputeKernel was moved from and has no program; use the kernel it was "
        "moved into");
  }
  return *program_;
}

std::array<int, 3> ComputeKernel::local_size() const {
  const auto& s = program().interface().local_size;
  return {s[0], s[1], s[2]};
}

bool ComputeKernel::belongs_to(const Context& context) const noexcept {
  return state_ && state_ == context.state();
}

const std::string& ComputeKernel::label() const {
  program();
  return label_;
}

std::vector<KernelVariable> ComputeKernel::variables() const {
  std::vector<KernelVariable> vars;
  const auto& pi = program().interface();
  for (const auto& b : pi.storage_blocks) {
    KernelVariable v;
    v.kind = KernelVariable::Kind::StorageBuffer;
    v.name = b.name;
    v.alias = b.member_name;
    v.glsl_type = b.element.name;
    v.element = b.element.element;
    v.components = b.element.components();
    v.array_size = b.array_size;
    v.host_bindable = b.single_array;
    vars.push_back(v);
  }
  for (const auto& u : pi.uniforms) {
    if (u.name.rfind("gpgpu_", 0) == 0) continue;
    KernelVariable v;
    v.kind = u.type.is_sampler ? KernelVariable::Kind::Sampler
             : u.type.is_image ? KernelVariable::Kind::Image
                               : KernelVariable::Kind::Uniform;
    v.name = u.name;
    v.glsl_type = u.type.name;
    v.element = u.type.element;
    v.components = u.type.components();
    v.array_size = u.array_size;
    vars.push_back(v);
  }
  return vars;
}

void ComputeKernel::run(const Args& args) {
  start(args, SizeMode::Derived, {}, false);
}
void ComputeKernel::run(const Args& args, std::size_t items) {
  start(args, SizeMode::Items1D, {items, 1, 1}, false);
}
void ComputeKernel::run(const Args& args, Size3 items) {
  start(args, SizeMode::Items3D, items, false);
}
void ComputeKernel::run_groups(const Args& args, Size3 groups) {
  start(args, SizeMode::Groups, groups, false);
}
PendingRun ComputeKernel::run_async(const Args& args) {
  return start(args, SizeMode::Derived, {}, true);
}
PendingRun ComputeKernel::run_async(const Args& args, std::size_t items) {
  return start(args, SizeMode::Items1D, {items, 1, 1}, true);
}
PendingRun ComputeKernel::run_async(const Args& args, Size3 items) {
  return start(args, SizeMode::Items3D, items, true);
}
PendingRun ComputeKernel::run_groups_async(const Args& args, Size3 groups) {
  return start(args, SizeMode::Groups, groups, true);
}

namespace {

// plan: the dispatch for the size mode, checked against the device's limits.
// How run() was asked to size the dispatch (ComputeKernel::SizeMode, which is private).
enum class Sizing { Derived, Items1D, Items3D, Groups };

void plan_dispatch(ComputePlan& plan, Sizing mode, Size3 size, std::array<int, 3> local,
                   const KernelShape& k) {
  using enum Sizing;
  const auto lx = static_cast<std::size_t>(local[0]), ly = static_cast<std::size_t>(local[1]),
             lz = static_cast<std::size_t>(local[2]);
  if (mode == Derived) {
    mode = Items1D;
    size = {derived_items(plan.blocks, k.label), 1, 1};
  }
  if (mode == Items3D) check_item_count(size, k.label);
  plan.count = size.total();
  if (mode == Items1D) {
    if (ly != 1 || lz != 1) {
      throw ArgumentError(fmt::format(
          "{}: the kernel's work group is {}x{}x{}; give run() a Size3 of items, not a count",
          k.label, lx, ly, lz));
    }
    // Past the work-group limit first: that message says how to index (gpgpu_index).
    plan.groups = groups_for_items(size.x, lx, k);
    check_item_count(size, k.label);
  } else if (mode == Items3D) {
    plan.groups = {(size.x + lx - 1) / lx, (size.y + ly - 1) / ly, (size.z + lz - 1) / lz};
  } else {
    plan.groups = size;
    plan.count = plan.groups.total() * lx * ly * lz;
  }
  const auto& g = plan.groups;
  const auto* max = k.info.max_compute_work_group_count;
  if (g.x == 0 || g.y == 0 || g.z == 0) {
    throw ArgumentError(
        fmt::format("{}: empty dispatch ({}x{}x{} groups)", k.label, g.x, g.y, g.z));
  }
  if (g.x > static_cast<std::size_t>(max[0]) || g.y > static_cast<std::size_t>(max[1]) ||
      g.z > static_cast<std::size_t>(max[2])) {
    throw LimitError(fmt::format("{}: {}x{}x{} work groups exceed the device's {}x{}x{}", k.label,
                                 g.x, g.y, g.z, max[0], max[1], max[2]));
  }
  if (plan.count > 0xFFFFFFFFull) {
    throw LimitError(
        fmt::format("{}: {} work items exceed 2^32 (gpgpu_count is a uint)", k.label, plan.count));
  }
  plan.row_stride = g.x * lx;
}

// upload: Buffers bind as they are; host arrays go into pooled temporaries (an output-only
// array is not uploaded at all).
void upload_blocks(ComputePlan& plan, detail::RunTransfers& io) {
  for (auto& bb : plan.blocks) {
    const Arg& v = bb.arg->value;
    if (v.kind() == Arg::Kind::DeviceBuffer) {
      bb.id = v.buffer()->gl_name();
      continue;
    }
    if (v.kind() == Arg::Kind::HostMemory) {
      bb.id = v.host_gl_name();
      continue;
    }
    bb.id = io.temporary(bb.bytes);
    if (v.access() == Access::Write) continue;
    const auto layout = layout_of(*bb.block);
    const bool host_row_major = v.layout() == MatrixLayout::RowMajor;
    if (layout.is_tight(host_row_major) && layout.offset == 0) {
      io.upload(bb.id, v.data(), bb.bytes);
    } else {
      std::vector<unsigned char> packed(bb.bytes, 0);
      detail::pack(v.data(), bb.elements, host_row_major, layout, packed.data());
      io.upload(bb.id, packed.data(), bb.bytes);
    }
  }
}

// commit: every written host array comes back (through host staging when its device layout
// differs from the host's).
void commit_blocks(const ComputePlan& plan, detail::RunTransfers& io) {
  bool host_memory_written = false;
  for (const auto& bb : plan.blocks) {
    const Arg& v = bb.arg->value;
    host_memory_written |= v.kind() == Arg::Kind::HostMemory && v.access() != Access::Read;
    if (v.kind() != Arg::Kind::HostArray || v.access() == Access::Read) continue;
    const auto layout = layout_of(*bb.block);
    const bool host_row_major = v.layout() == MatrixLayout::RowMajor;
    if (layout.is_tight(host_row_major) && layout.offset == 0) {
      io.download(bb.id, 0, v.writable_data(), bb.bytes);
      continue;
    }
    io.download_then(bb.id, 0, bb.bytes,
                     [elements = bb.elements, host_row_major, layout,
                      out = v.writable_data()](const unsigned char* device) {
                       detail::unpack(device, elements, host_row_major, layout, out);
                     });
  }
  // The GPU writes a mapped HostBuffer directly: the run ends when its commands have.
  if (host_memory_written) io.then([] {});
}

// A capture's part of a run: the checked and planned dispatch, written down.
void record_planned(detail::DispatchSink& sink, std::shared_ptr<const detail::Program> program,
                    const std::string& label, const ComputePlan& plan,
                    const detail::ResolvedArgs& resolved, std::array<GLuint, 2> pass) {
  std::vector<detail::PlannedBlock> blocks;
  for (const auto& bb : plan.blocks) blocks.push_back({bb.block, bb.arg, bb.bytes});
  const auto g = plan.groups;
  auto d = detail::record_dispatch(
      std::move(program), label, blocks, resolved,
      {static_cast<GLuint>(g.x), static_cast<GLuint>(g.y), static_cast<GLuint>(g.z)});
  detail::record_internal_uint(d, "gpgpu_count", static_cast<GLuint>(plan.count));
  detail::record_internal_uint(d, "gpgpu_row_stride", static_cast<GLuint>(plan.row_stride));
  detail::record_internal_uint(d, "gpgpu_pass_begin", pass[0]);
  detail::record_internal_uint(d, "gpgpu_pass_end", pass[1]);
  sink.add(std::move(d));
}

}  // namespace

PendingRun ComputeKernel::start(const Args& args, SizeMode mode, Size3 size, bool async) {
  const auto& pi = program().interface();
  const auto started = std::chrono::steady_clock::now();
  state_->ensure_current();
  const std::string& name = label_;
  const KernelShape shape{pi, state_->info, state_.get(), name};

  // validate and plan: nothing touches the GPU until every argument is known to fit.
  const auto resolved = detail::resolve_args(pi, args, name, false);
  ComputePlan plan;
  plan.blocks = check_arguments(resolved, shape);
  const Sizing sizing = mode == SizeMode::Derived   ? Sizing::Derived
                        : mode == SizeMode::Items1D ? Sizing::Items1D
                        : mode == SizeMode::Items3D ? Sizing::Items3D
                                                    : Sizing::Groups;
  plan_dispatch(plan, sizing, size, local_size(), shape);
  // A Sequence capturing this Context's runs takes the dispatch instead (dispatch_record.hpp).
  if (state_->capture != nullptr) {
    record_planned(*state_->capture, program_, label_, plan, resolved, {pass_begin_, pass_end_});
    return {};
  }

  detail::RunTransfers io(*state_);
  upload_blocks(plan, io);

  // launch
  GL(glUseProgram(program().id()));
  program().note_uniform_writes();
  for (const auto& bb : plan.blocks) {
    GL(glBindBufferRange(GL_SHADER_STORAGE_BUFFER, static_cast<GLuint>(bb.block->binding), bb.id, 0,
                         static_cast<GLsizeiptr>(bb.bytes)));
    // A caller's Buffer may be uploaded into next (run temporaries come back through the
    // pool's fences instead).
    if (bb.arg->value.kind() == Arg::Kind::DeviceBuffer)
      state_->engine_while_current().note_gpu_use(bb.id);
  }
  detail::set_uniforms(resolved, name);
  detail::set_internal_uint(pi, "gpgpu_count", static_cast<GLuint>(plan.count));
  detail::set_internal_uint(pi, "gpgpu_row_stride", static_cast<GLuint>(plan.row_stride));
  detail::set_internal_uint(pi, "gpgpu_pass_begin", pass_begin_);
  detail::set_internal_uint(pi, "gpgpu_pass_end", pass_end_);
  {
    detail::GpuTimer timer(*state_, timing_);
    GL(glDispatchCompute(static_cast<GLuint>(plan.groups.x), static_cast<GLuint>(plan.groups.y),
                         static_cast<GLuint>(plan.groups.z)));
    last_gpu_ns_ = timer.stop();
  }
  // Make the writes visible to whatever reads next: another kernel, a draw, a read-back.
  GL(glMemoryBarrier(GL_ALL_BARRIER_BITS));
  for (const auto& bb : plan.blocks) {
    GL(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, static_cast<GLuint>(bb.block->binding), 0));
  }
  detail::detach_buffer_texels(*state_);
  // With a timeout, nothing reaches the caller's arrays from a run that overran it.
  state_->wait_within_timeout(started, name);

  commit_blocks(plan, io);
  if (async) return io.finish_async();
  io.finish();
  return {};
}

}  // namespace gpgpu
