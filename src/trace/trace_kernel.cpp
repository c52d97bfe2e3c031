#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "gpgpu/trace.hpp"
#include "trace/trace_instrument.hpp"

namespace gpgpu {

namespace {

// std430 array strides of the types introspection names; 0 where unknown (structs).
std::size_t std430_stride(const std::string& type) {
  for (const char* scalar : {"float", "int", "uint", "bool"}) {
    if (type == scalar) return 4;
  }
  if (type.size() == 4 || type.size() == 5) {  // vec2, ivec3, uvec4...
    const char n = type.back();
    const std::string_view stem = std::string_view(type).substr(0, type.size() - 1);
    if (stem == "vec" || stem == "ivec" || stem == "uvec" || stem == "bvec") {
      return n == '2' ? 8 : (n == '3' || n == '4') ? 16 : 0;
    }
  }
  return 0;
}

std::string storage_arrays(const std::vector<KernelVariable>& vars) {
  std::string list;
  for (const auto& v : vars) {
    if (v.kind != KernelVariable::Kind::StorageBuffer) continue;
    list += fmt::format("\n  buffer {}{}", v.name,
                        v.alias.empty() ? "" : " { " + v.glsl_type + " " + v.alias + "[] }");
  }
  return list.empty() ? "\n  (none)" : list;
}

}  // namespace

TracedKernel::TracedKernel(const Context& context, std::string_view source,
                           const TraceOptions& options, const Defines& defines, std::string label)
    : options_(options) {
  if (options.capacity == 0) throw ArgumentError("trace: TraceOptions::capacity must be positive");
  const auto& info = context.info();
  const std::size_t log_bytes = 8 + 8 * options.capacity;
  if (static_cast<std::int64_t>(log_bytes) > info.max_shader_storage_block_size) {
    throw LimitError(fmt::format(
        "trace: a log of {} accesses needs {} bytes; the device binds at most {} to one storage "
        "block",
        options.capacity, log_bytes, info.max_shader_storage_block_size));
  }
  // The kernel as written: it must compile, and introspection tells which arrays exist.
  const auto vars = ComputeKernel(context, source, defines, label).variables();
  const KernelVariable* match = nullptr;
  for (const auto& v : vars) {
    if (v.kind == KernelVariable::Kind::StorageBuffer &&
        (v.name == options.buffer || v.alias == options.buffer)) {
      match = &v;
    }
  }
  if (match != nullptr) {
    if (match->alias.empty()) {
      throw ArgumentError(
          fmt::format("trace: buffer block {} has several members; name the array member to trace",
                      match->name));
    }
    array_ = match->alias;
    glsl_type_ = match->glsl_type;
  } else {
    array_ = options.buffer;  // perhaps a shared or local array: traced if it is subscripted
  }
  const int binding = static_cast<int>(info.max_shader_storage_buffer_bindings) - 1;
  detail::InstrumentedSource instrumented;
  try {
    instrumented = detail::instrument_array_accesses(source, array_, binding);
  } catch (const ArgumentError& e) {
    if (match != nullptr) throw;
    throw UnknownArgumentError(
        fmt::format("{}; the kernel's storage arrays are:{}", e.what(), storage_arrays(vars)));
  }
  instrumented_source_ = std::move(instrumented.source);
  sites_ = instrumented.sites;
  element_bytes_ = options.element_bytes != 0 ? options.element_bytes : std430_stride(glsl_type_);
  if (element_bytes_ == 0) element_bytes_ = 4;
  kernel_ = std::make_unique<ComputeKernel>(context, instrumented_source_, defines,
                                            label + " (tracing " + array_ + ")");
  log_ = Buffer(context, ElementType::Uint32, 2 + 2 * options.capacity);
}

TracedKernel::~TracedKernel() = default;
TracedKernel::TracedKernel(TracedKernel&&) noexcept = default;
TracedKernel& TracedKernel::operator=(TracedKernel&&) noexcept = default;

template <class Runner>
AccessTrace TracedKernel::traced(const Args& args, Runner&& run_kernel) {
  if (!kernel_) throw Error("this TracedKernel was moved from");
  log_.upload(std::vector<std::uint32_t>{0u, 0u});
  Args all = args;
  all.emplace_back(detail::trace_log_block, Arg(log_));
  run_kernel(all);

  std::vector<std::uint32_t> head(2);
  log_.download(std::span<std::uint32_t>(head));
  AccessTrace trace;
  trace.buffer = array_;
  trace.glsl_type = glsl_type_;
  trace.element_bytes = element_bytes_;
  trace.local_size = kernel_->local_size();
  trace.group_size =
      static_cast<std::size_t>(trace.local_size[0]) * trace.local_size[1] * trace.local_size[2];
  trace.sites = sites_;
  trace.total_accesses = head[0];
  const std::size_t kept = std::min<std::size_t>(head[0], options_.capacity);
  trace.truncated = kept < head[0];
  if (kept > 0) {
    std::vector<std::uint32_t> entries(2 * kept);
    log_.download(std::span<std::uint32_t>(entries), 2);
    trace.accesses.resize(kept);
    for (std::size_t i = 0; i < kept; ++i) {
      const std::uint32_t word = entries[2 * i + 1];
      trace.accesses[i].invocation = entries[2 * i];
      trace.accesses[i].element = word & 0x3FFFFFFFu;
      trace.accesses[i].kind = static_cast<AccessKind>(word >> 30);
    }
  }
  return trace;
}

AccessTrace TracedKernel::run(const Args& args) {
  return traced(args, [&](const Args& a) { kernel_->run(a); });
}
AccessTrace TracedKernel::run(const Args& args, std::size_t items) {
  return traced(args, [&](const Args& a) { kernel_->run(a, items); });
}
AccessTrace TracedKernel::run(const Args& args, Size3 items) {
  return traced(args, [&](const Args& a) { kernel_->run(a, items); });
}
AccessTrace TracedKernel::run_groups(const Args& args, Size3 groups) {
  return traced(args, [&](const Args& a) { kernel_->run_groups(a, groups); });
}

AccessTrace trace_kernel(const Context& context, std::string_view source, const Args& args,
                         const TraceDispatch& dispatch, const TraceOptions& options,
                         const Defines& defines, std::string label) {
  TracedKernel traced(context, source, options, defines, std::move(label));
  switch (dispatch.mode) {
    case TraceDispatch::Mode::Derived:
      return traced.run(args);
    case TraceDispatch::Mode::Items:
      return traced.run(args, dispatch.size.x);
    case TraceDispatch::Mode::Grid:
      return traced.run(args, dispatch.size);
    case TraceDispatch::Mode::Groups:
      return traced.run_groups(args, dispatch.size);
  }
  throw ArgumentError("trace_kernel: unknown dispatch mode");
}

}  // namespace gpgpu
