#include "gpgpu/compute_kernel.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "binding/binding.hpp"
#include "gl/gl_buffer.hpp"
#include "shader/glsl_source.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/error.hpp"
#include "gl/gpu_timer.hpp"
#include "binding/layout_pack.hpp"
#include "shader/program.hpp"

namespace gpgpu {

namespace {

// Helpers every compute kernel can call; unused ones cost nothing (the uniforms are
// dropped by the compiler, and gpgpu then knows the kernel does not use them).
constexpr std::string_view compute_prelude =
    "uniform uint gpgpu_count;\n"
    "uniform uint gpgpu_row_stride;\n"
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

// One storage block's binding for one run: a temporary GL buffer for a host array, or a
// user's Buffer.
struct BlockBinding {
  const detail::StorageBlock* block = nullptr;
  const NamedArg* arg = nullptr;
  std::size_t elements = 0;  // GLSL elements (vec3s, mat4s...)
  std::size_t bytes = 0;     // bytes bound
  detail::ScopedGlBuffer temporary;
  GLuint id = 0;
};

}  // namespace

ComputeKernel::ComputeKernel(const Context& context, std::string_view source,
                             const Defines& defines, std::string label)
    : state_(context.state()) {
  state_->ensure_current();
  detail::ShaderStage stage{GL_COMPUTE_SHADER,
                            detail::complete_source(source, GL_COMPUTE_SHADER, state_->info,
                                                    defines, compute_prelude),
                            std::string(source)};
  program_ = detail::cached_program(*state_, "compute\n" + stage.source, {stage}, {}, label);
}

ComputeKernel::~ComputeKernel() = default;
ComputeKernel::ComputeKernel(ComputeKernel&&) noexcept = default;
ComputeKernel& ComputeKernel::operator=(ComputeKernel&&) noexcept = default;

std::array<int, 3> ComputeKernel::local_size() const {
  const auto& s = program_->interface().local_size;
  return {s[0], s[1], s[2]};
}

const std::string& ComputeKernel::label() const { return program_->label(); }

std::vector<KernelVariable> ComputeKernel::variables() const {
  std::vector<KernelVariable> vars;
  const auto& pi = program_->interface();
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

void ComputeKernel::run(const Args& args) { execute(args, SizeMode::Derived, {}); }
void ComputeKernel::run(const Args& args, std::size_t items) {
  execute(args, SizeMode::Items1D, {items, 1, 1});
}
void ComputeKernel::run(const Args& args, Size3 items) { execute(args, SizeMode::Items3D, items); }
void ComputeKernel::run_groups(const Args& args, Size3 groups) {
  execute(args, SizeMode::Groups, groups);
}

void ComputeKernel::execute(const Args& args, SizeMode mode, Size3 size) {
  if (!state_ || !program_) throw Error("this ComputeKernel was moved from");
  state_->ensure_current();
  const auto& pi = program_->interface();
  const std::string& name = program_->label();
  const auto& info = state_->info;
  auto resolved = detail::resolve_args(pi, args, name, false);

  // 1. Check everything before touching the GPU, so a bad call changes nothing.
  std::vector<BlockBinding> bindings;
  for (auto [block, arg] : resolved.blocks) {
    BlockBinding bb;
    bb.block = block;
    bb.arg = arg;
    const Arg& v = arg->value;
    if (v.kind() == Arg::Kind::DeviceBuffer) {
      if (v.buffer() == nullptr || !v.buffer()->valid()) {
        throw ArgumentError(fmt::format("{}: Buffer for '{}' is empty or released", name, arg->name));
      }
      if (v.buffer()->context_state() != state_) {
        throw ArgumentError(fmt::format("{}: Buffer for '{}' belongs to another Context", name, arg->name));
      }
      bb.bytes = v.buffer()->bytes();
      if (block->single_array) {
        detail::check_element_type(*arg, block->element, name, "storage array");
        bb.elements = block->array_stride > 0
                          ? (bb.bytes > static_cast<std::size_t>(block->offset)
                                 ? (bb.bytes - static_cast<std::size_t>(block->offset)) /
                                       static_cast<std::size_t>(block->array_stride)
                                 : 0)
                          : 0;
      }
      if (bb.bytes < static_cast<std::size_t>(block->fixed_size) && block->array_size != 0) {
        throw SizeMismatchError(fmt::format("{}: buffer block {} needs {} bytes; the Buffer has {}",
                                            name, block->name, block->fixed_size, bb.bytes));
      }
    } else if (v.kind() == Arg::Kind::HostArray) {
      if (!block->single_array) {
        throw ArgumentError(fmt::format(
            "{}: buffer block {} has members {{{}}}; a host array binds only to a block with a "
            "single array member; bind a gpgpu::Buffer holding the block's bytes instead",
            name, block->name, fmt::join(block->members, ", ")));
      }
      detail::check_element_type(*arg, block->element, name, "storage array");
      bb.elements = detail::whole_elements(*arg, block->element, name, "storage array");
      if (block->array_size != 0 && bb.elements != static_cast<std::size_t>(block->array_size)) {
        throw SizeMismatchError(fmt::format(
            "{}: '{}' is declared {} {}[{}] but {} elements were given", name, arg->name,
            block->element.name, block->member_name, block->array_size, bb.elements));
      }
      if (bb.elements == 0) {
        throw SizeMismatchError(fmt::format("{}: '{}' is empty; storage arrays need at least one element",
                                            name, arg->name));
      }
      bb.bytes = layout_of(*block).device_bytes(bb.elements);
    } else {
      throw TypeMismatchError(fmt::format("{}: buffer block {} takes a host array or a Buffer, not {}",
                                          name, block->name, v.describe()));
    }
    if (static_cast<std::int64_t>(bb.bytes) > info.max_shader_storage_block_size) {
      throw LimitError(fmt::format(
          "{}: '{}' needs {} bytes but the device binds at most {} bytes to one storage block "
          "(GL_MAX_SHADER_STORAGE_BLOCK_SIZE); split the array",
          name, arg->name, bb.bytes, info.max_shader_storage_block_size));
    }
    bindings.push_back(std::move(bb));
  }
  for (std::size_t i = 0; i < bindings.size(); ++i) {
    for (std::size_t j = i + 1; j < bindings.size(); ++j) {
      if (bindings[i].block->binding == bindings[j].block->binding) {
        throw ArgumentError(fmt::format(
            "{}: buffer blocks {} and {} share binding {}; give each its own "
            "layout(std430, binding = N) (OpenGL ES cannot rebind storage blocks)",
            name, bindings[i].block->name, bindings[j].block->name, bindings[i].block->binding));
      }
    }
  }
  for (auto [uniform, arg] : resolved.uniforms) detail::check_uniform(*uniform, *arg, name);

  // 2. Work out the dispatch.
  const auto local = local_size();
  const std::size_t lx = static_cast<std::size_t>(local[0]), ly = static_cast<std::size_t>(local[1]),
                    lz = static_cast<std::size_t>(local[2]);
  if (mode == SizeMode::Derived) {
    std::optional<std::size_t> common;
    std::string counts;
    bool disagree = false;
    for (const auto& bb : bindings) {
      if (!bb.block->single_array) continue;
      counts += fmt::format(" {}={}", bb.arg->name, bb.elements);
      if (common && *common != bb.elements) disagree = true;
      if (!common) common = bb.elements;
    }
    if (!common) {
      throw ArgumentError(fmt::format(
          "{}: no array argument to take the number of work items from; pass it to run()", name));
    }
    if (disagree) {
      throw SizeMismatchError(fmt::format(
          "{}: the arrays disagree in length ({} ), so the number of work items is ambiguous; "
          "pass it to run()",
          name, counts));
    }
    mode = SizeMode::Items1D;
    size = {*common, 1, 1};
  }
  const auto max_x = static_cast<std::size_t>(info.max_compute_work_group_count[0]);
  const auto max_y = static_cast<std::size_t>(info.max_compute_work_group_count[1]);
  const auto max_z = static_cast<std::size_t>(info.max_compute_work_group_count[2]);
  Size3 groups;
  std::size_t count = size.total();
  if (mode == SizeMode::Items1D) {
    if (ly != 1 || lz != 1) {
      throw ArgumentError(fmt::format(
          "{}: the kernel's work group is {}x{}x{}; give run() a Size3 of items, not a count",
          name, lx, ly, lz));
    }
    if (size.x == 0) throw ArgumentError(fmt::format("{}: zero work items", name));
    const std::size_t needed = (size.x + lx - 1) / lx;
    if (needed <= max_x) {
      groups = {needed, 1, 1};
    } else {
      if (pi.find_uniform("gpgpu_row_stride") == nullptr) {
        throw LimitError(fmt::format(
            "{}: {} items need {} work groups, more than the device's {} in x; index with "
            "gpgpu_index() instead of gl_GlobalInvocationID.x so gpgpu can split the dispatch "
            "into rows",
            name, size.x, needed, max_x));
      }
      const std::size_t rows = (needed + max_x - 1) / max_x;
      groups = {(needed + rows - 1) / rows, rows, 1};
      if (rows > max_y) {
        throw LimitError(fmt::format("{}: {} items exceed what one dispatch can cover ({} x {} groups of {})",
                                     name, size.x, max_x, max_y, lx));
      }
    }
  } else if (mode == SizeMode::Items3D) {
    groups = {(size.x + lx - 1) / lx, (size.y + ly - 1) / ly, (size.z + lz - 1) / lz};
  } else {
    groups = size;
    count = groups.total() * lx * ly * lz;
  }
  if (groups.x == 0 || groups.y == 0 || groups.z == 0) {
    throw ArgumentError(fmt::format("{}: empty dispatch ({}x{}x{} groups)", name, groups.x, groups.y, groups.z));
  }
  if (groups.x > max_x || groups.y > max_y || groups.z > max_z) {
    throw LimitError(fmt::format("{}: {}x{}x{} work groups exceed the device's {}x{}x{}", name,
                                 groups.x, groups.y, groups.z, max_x, max_y, max_z));
  }
  if (count > 0xFFFFFFFFull) {
    throw LimitError(fmt::format("{}: {} work items exceed 2^32 (gpgpu_count is a uint)", name, count));
  }

  // 3. Upload host arrays into temporary buffers.
  for (auto& bb : bindings) {
    const Arg& v = bb.arg->value;
    if (v.kind() == Arg::Kind::DeviceBuffer) {
      bb.id = v.buffer()->gl_name();
      continue;
    }
    const auto layout = layout_of(*bb.block);
    const bool host_row_major = v.layout() == MatrixLayout::RowMajor;
    if (v.access() == Access::Write) {
      bb.temporary = detail::ScopedGlBuffer(detail::create_gl_buffer(bb.bytes, nullptr, GL_DYNAMIC_COPY));
    } else if (layout.is_tight(host_row_major) && layout.offset == 0) {
      bb.temporary = detail::ScopedGlBuffer(detail::create_gl_buffer(bb.bytes, v.data(), GL_DYNAMIC_COPY));
    } else {
      std::vector<unsigned char> staging(bb.bytes, 0);
      detail::pack(v.data(), bb.elements, host_row_major, layout, staging.data());
      bb.temporary = detail::ScopedGlBuffer(detail::create_gl_buffer(bb.bytes, staging.data(), GL_DYNAMIC_COPY));
    }
    bb.id = bb.temporary.id();
  }

  // 4. Bind, set uniforms, dispatch.
  GL(glUseProgram(program_->id()));
  for (const auto& bb : bindings) {
    GL(glBindBufferRange(GL_SHADER_STORAGE_BUFFER, static_cast<GLuint>(bb.block->binding), bb.id, 0,
                         static_cast<GLsizeiptr>(bb.bytes)));
  }
  GLuint texture_unit = 0;
  for (auto [uniform, arg] : resolved.uniforms) detail::set_uniform(*uniform, *arg, texture_unit, name);
  detail::set_internal_uint(pi, "gpgpu_count", static_cast<GLuint>(count));
  detail::set_internal_uint(pi, "gpgpu_row_stride", static_cast<GLuint>(groups.x * lx));
  {
    detail::GpuTimer timer(*state_, timing_);
    GL(glDispatchCompute(static_cast<GLuint>(groups.x), static_cast<GLuint>(groups.y),
                         static_cast<GLuint>(groups.z)));
    last_gpu_ns_ = timer.stop();
  }
  // Make the writes visible to whatever reads next: another kernel, a draw, a read-back.
  GL(glMemoryBarrier(GL_ALL_BARRIER_BITS));
  for (const auto& bb : bindings) {
    GL(glBindBufferBase(GL_SHADER_STORAGE_BUFFER, static_cast<GLuint>(bb.block->binding), 0));
  }

  // 5. Read back every written host array into staging first, then commit: if a read-back
  // fails, none of the caller's arrays has changed.
  std::vector<std::pair<const BlockBinding*, std::vector<unsigned char>>> results;
  for (const auto& bb : bindings) {
    const Arg& v = bb.arg->value;
    if (v.kind() != Arg::Kind::HostArray || v.access() == Access::Read) continue;
    std::vector<unsigned char> device(bb.bytes);
    detail::read_gl_buffer(bb.id, 0, bb.bytes, device.data());
    results.emplace_back(&bb, std::move(device));
  }
  for (auto& [bb, device] : results) {
    const Arg& v = bb->arg->value;
    detail::unpack(device.data(), bb->elements, v.layout() == MatrixLayout::RowMajor,
                   layout_of(*bb->block), v.writable_data());
  }
}

}  // namespace gpgpu
