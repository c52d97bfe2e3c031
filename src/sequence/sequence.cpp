#include "gpgpu/sequence.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "binding/binding.hpp"
#include "gl/context_state.hpp"
#include "gpgpu/error.hpp"
#include "sequence/sequence_data.hpp"

namespace gpgpu {

namespace {

// Collects the dispatches of a capture; the Sequence takes them only when it succeeds.
class CaptureSink final : public detail::DispatchSink {
 public:
  void add(detail::DispatchRecord record) override { records.push_back(std::move(record)); }
  std::vector<detail::DispatchRecord> records;
};

std::string bits_text(std::uint32_t bits) {
  if (bits == GL_ALL_BARRIER_BITS) return "ALL";
  std::string text;
  const std::pair<std::uint32_t, const char*> names[] = {
      {GL_SHADER_STORAGE_BARRIER_BIT, "SHADER_STORAGE"},
      {GL_SHADER_IMAGE_ACCESS_BARRIER_BIT, "SHADER_IMAGE_ACCESS"},
      {GL_TEXTURE_FETCH_BARRIER_BIT, "TEXTURE_FETCH"}};
  for (const auto& [bit, name] : names) {
    if ((bits & bit) != 0) text += (text.empty() ? "" : " | ") + std::string(name);
  }
  return text;
}

}  // namespace

Sequence::Sequence(const Context& context, std::string label)
    : data_(std::make_shared<detail::SequenceData>()) {
  data_->state = context.state();
  data_->label = std::move(label);
}

Sequence::~Sequence() = default;
Sequence::Sequence(Sequence&&) noexcept = default;
Sequence& Sequence::operator=(Sequence&&) noexcept = default;

detail::SequenceData& Sequence::data() const {
  if (!data_) throw Error("this gpgpu::Sequence was moved from; use the one it was moved into");
  return *data_;
}

void Sequence::capture(const std::function<void()>& body) {
  auto& d = data();
  auto& state = *d.state;
  state.ensure_current();
  CaptureSink sink;
  detail::DispatchSink* outer = state.capture;
  state.capture = &sink;
  try {
    body();
  } catch (...) {
    state.capture = outer;
    throw;
  }
  state.capture = outer;
  if (sink.records.empty()) return;
  for (auto& r : sink.records) d.dispatches.push_back(std::move(r));
  d.compiled = false;
}

bool Sequence::capturing(const Context& context) {
  return context.state()->capture != nullptr;
}

namespace {

// A kernel of another Context would run at once (the capture is this Context's). A moved-from
// kernel throws run()'s own error inside the capture.
void check_kernel(const detail::SequenceData& d, const ComputeKernel& kernel) {
  if (kernel.context_state() && kernel.context_state() != d.state) {
    throw ArgumentError(
        fmt::format("sequence '{}': the kernel belongs to another Context", d.label));
  }
}

}  // namespace

void Sequence::record(ComputeKernel& kernel, const Args& args) {
  check_kernel(data(), kernel);
  capture([&] { kernel.run(args); });
}
void Sequence::record(ComputeKernel& kernel, const Args& args, std::size_t items) {
  check_kernel(data(), kernel);
  capture([&] { kernel.run(args, items); });
}
void Sequence::record(ComputeKernel& kernel, const Args& args, Size3 items) {
  check_kernel(data(), kernel);
  capture([&] { kernel.run(args, items); });
}
void Sequence::record_groups(ComputeKernel& kernel, const Args& args, Size3 groups) {
  check_kernel(data(), kernel);
  capture([&] { kernel.run_groups(args, groups); });
}

void Sequence::replay() {
  auto& d = data();
  auto& state = *d.state;
  const auto started = std::chrono::steady_clock::now();
  state.ensure_current();
  if (!d.compiled) detail::compile_sequence(d);
  detail::check_objects(d);
  if (state.capture != nullptr) {
    // Inside another capture: recorded there, with the values as they are now.
    for (const auto& r : d.dispatches) state.capture->add(r);
    return;
  }
  detail::issue(d);
  state.wait_within_timeout(started, d.label);
}

bool Sequence::replayable() const {
  auto& d = data();
  if (!d.compiled) detail::compile_sequence(d);
  try {
    detail::check_objects(d);
  } catch (const ArgumentError&) {
    return false;
  }
  return true;
}

namespace {

void refuse_uniform(const detail::SequenceData& d, const std::string& name,
                    const detail::UniformVariable& u) {
  if (u.type.is_opaque()) {
    throw ArgumentError(fmt::format(
        "sequence '{}': uniform {} {} binds a texture; record the sequence again to bind "
        "another one",
        d.label, u.type.name, name));
  }
}

}  // namespace

SequenceUniform Sequence::uniform(const std::string& name) {
  auto& d = data();
  if (name.rfind("gpgpu_", 0) == 0) {
    throw ArgumentError(fmt::format(
        "sequence '{}': '{}' is set by gpgpu itself (names starting with gpgpu_ are reserved)",
        d.label, name));
  }
  SequenceUniform h;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < d.dispatches.size(); ++i) {
    const auto& uniforms = d.dispatches[i].uniforms;
    for (std::size_t k = 0; k < uniforms.size(); ++k) {
      const auto& u = *uniforms[k].variable;
      if (uniforms[k].internal) continue;
      if (u.name != name) {
        if (std::find(names.begin(), names.end(), u.name) == names.end()) names.push_back(u.name);
        continue;
      }
      refuse_uniform(d, name, u);
      h.targets_.emplace_back(i, k);
    }
  }
  if (h.targets_.empty()) {
    throw UnknownArgumentError(fmt::format(
        "sequence '{}': no recorded dispatch sets a uniform '{}'; the recorded uniforms are: {}",
        d.label, name,
        names.empty() ? std::string("(none)") : fmt::format("{}", fmt::join(names, ", "))));
  }
  h.data_ = data_;
  h.generation_ = d.generation;
  const auto& [first_dispatch, first_uniform] = h.targets_.front();
  const auto& u = *d.dispatches[first_dispatch].uniforms[first_uniform].variable;
  h.variable_.name = name;
  h.variable_.kind = KernelVariable::Kind::Uniform;
  h.variable_.glsl_type = u.type.name;
  h.variable_.element = u.type.element;
  h.variable_.components = u.type.components();
  h.variable_.array_size = u.array_size;
  return h;
}

SequenceUniform Sequence::uniform(const std::string& name, std::size_t first, std::size_t end) {
  auto& d = data();
  if (first >= end || end > d.dispatches.size()) {
    throw ArgumentError(fmt::format("sequence '{}': dispatches [{}, {}) of {} recorded", d.label,
                                    first, end, d.dispatches.size()));
  }
  SequenceUniform h = uniform(name);
  std::erase_if(h.targets_, [&](const auto& t) { return t.first < first || t.first >= end; });
  if (h.targets_.empty()) {
    throw UnknownArgumentError(
        fmt::format("sequence '{}': none of dispatches [{}, {}) sets a uniform '{}'", d.label,
                    first, end, name));
  }
  return h;
}

std::vector<std::size_t> Sequence::dispatches_with(const std::string& name) const {
  const auto& d = data();
  std::vector<std::size_t> list;
  for (std::size_t i = 0; i < d.dispatches.size(); ++i) {
    for (const auto& u : d.dispatches[i].uniforms) {
      if (!u.internal && u.variable->name == name) {
        list.push_back(i);
        break;
      }
    }
  }
  return list;
}

void SequenceUniform::set(const Arg& value) {
  const auto d = data_.lock();
  if (!d)
    throw Error(fmt::format("uniform '{}': its gpgpu::Sequence no longer exists", variable_.name));
  if (d->generation != generation_) {
    throw Error(fmt::format(
        "uniform '{}': sequence '{}' was cleared since this handle was made; ask it for a new one",
        variable_.name, d->label));
  }
  const NamedArg arg(variable_.name, value);
  // Checked like a run checks the uniform, for every dispatch before any changes.
  for (const auto& [i, k] : targets_) {
    detail::check_uniform(*d->dispatches[i].uniforms[k].variable, arg, d->dispatches[i].label);
  }
  for (const auto& [i, k] : targets_) {
    auto& u = d->dispatches[i].uniforms[k];
    std::memcpy(u.words.data(), value.data(), u.words.size() * sizeof(std::uint32_t));
    u.row_major = value.layout() == MatrixLayout::RowMajor;
  }
}

void Sequence::clear() {
  auto& d = data();
  d.dispatches.clear();
  d.compiled = false;
  ++d.generation;
}

std::size_t Sequence::size() const {
  return data().dispatches.size();
}

std::vector<SequenceBarrier> Sequence::barriers() const {
  auto& d = data();
  if (!d.compiled) detail::compile_sequence(d);
  std::vector<SequenceBarrier> list;
  for (std::size_t i = 0; i < d.dispatches.size(); ++i) {
    if (d.barriers.before[i] != 0) list.push_back({i, d.barriers.before[i]});
  }
  if (d.barriers.after_last != 0) list.push_back({d.dispatches.size(), d.barriers.after_last});
  return list;
}

std::string Sequence::describe() const {
  auto& d = data();
  if (!d.compiled) detail::compile_sequence(d);
  std::string text = fmt::format("sequence '{}': {} dispatches\n", d.label, d.dispatches.size());
  for (std::size_t i = 0; i < d.dispatches.size(); ++i) {
    if (d.barriers.before[i] != 0) {
      text += fmt::format("  barrier {}\n", bits_text(d.barriers.before[i]));
    }
    const auto& r = d.dispatches[i];
    text += fmt::format("  {} {} ({}x{}x{} groups)\n", i, r.label, r.groups[0], r.groups[1],
                        r.groups[2]);
  }
  if (d.barriers.after_last != 0) {
    text += fmt::format("  barrier {}\n", bits_text(d.barriers.after_last));
  }
  return text;
}

const std::string& Sequence::label() const {
  return data().label;
}

void Sequence::set_timing(bool enabled) {
  data().timing = enabled;
}

double Sequence::last_gpu_ns() const {
  return data().last_gpu_ns;
}

}  // namespace gpgpu
