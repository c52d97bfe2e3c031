// gpgpu/sequence.hpp — compute dispatches recorded once and replayed cheaply.
//
//   gpgpu::Sequence step(ctx, "step");
//   step.record(scale, {{"x", x}, {"y", y}, {"factor", 2.0f}});      // checked now, like run()
//   step.record(add, {{"y", y}, {"z", z}, {"offset", 0u}});
//   auto offset = step.uniform("offset");   // a value that changes between replays
//   for (std::uint32_t i = 0; i < 100; ++i) {
//     offset.set(i);
//     step.replay();                         // the two dispatches, nothing re-checked
//   }
//
// Recording a kernel does everything run() does before the GPU is touched — names resolved,
// every argument checked (the same checks and the same errors as run()), the dispatch
// planned — and writes the result down instead of running it. A replay then issues only the
// GL calls that change something from one dispatch to the next (program, buffer bindings,
// uniform values, texture units) and a memory barrier only where a dispatch depends on an
// earlier one of the sequence: it reads or writes what an earlier one wrote (the barrier bits
// of how it reads: storage buffer, image, texture fetch), or writes what an earlier one read.
// Which dispatch reads and which writes comes from the kernels' memory qualifiers
// (`readonly` / `writeonly` storage blocks and images; a block without either is both).
// A replay ends with the barrier a run ends with, so whatever follows (a run, a download,
// another replay) sees its writes.
//
// Capture records the runs of code written for run(): every ComputeKernel run on the
// Context inside the function is recorded instead of run, in order:
//   step.capture([&] { net.forward(); net.backward(); });   // records, runs nothing
// While a capture lasts, anything else that would touch the GPU at once (Buffer uploads and
// downloads, transform-feedback and fragment kernels) throws UnsupportedError; a replay of
// another Sequence inside a capture is recorded into it, with its values as they are then.
//
// Arguments: Buffers, Textures (samplers, images), gpgpu::texels and uniform values. Host
// arrays and mapped HostBuffers are refused (ArgumentError): put them in Buffers. Uniform
// values are copied when recorded; uniform(name) returns a handle that changes one (in
// every dispatch that has it, or in one dispatch) for the following replays, checked like
// run() checks a uniform. Buffers and Textures are followed, not owned: one destroyed,
// released or replaced (reassigned) after recording makes the next replay throw
// ArgumentError naming it and its dispatch, before anything runs; record again.
//
// Timing: set_timing(true) and last_gpu_ns() time a whole replay on the GPU, so a Sequence
// is a TimedKernel (profiler.hpp): Profiler::record(sequence) and Profiler scopes take it.
// A Sequence belongs to its Context's thread, as kernels do. Compute shaders only: the
// browser build (WebGL2) has none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpgpu/arg.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/kernel_variable.hpp"

namespace gpgpu {

namespace detail {
struct SequenceData;
}

// The glMemoryBarrier bits a SequenceBarrier holds (their GL values).
namespace barrier_bits {
inline constexpr std::uint32_t texture_fetch = 0x0008;        // GL_TEXTURE_FETCH_BARRIER_BIT
inline constexpr std::uint32_t shader_image_access = 0x0020;  // GL_SHADER_IMAGE_ACCESS_...
inline constexpr std::uint32_t shader_storage = 0x2000;       // GL_SHADER_STORAGE_BARRIER_BIT
inline constexpr std::uint32_t all = 0xFFFFFFFF;              // GL_ALL_BARRIER_BITS
}  // namespace barrier_bits

// One memory barrier a replay issues: before dispatch `before` (== Sequence::size(): after the
// last one), with these GL_*_BARRIER_BIT bits.
struct SequenceBarrier {
  std::size_t before = 0;  // the index of the dispatch it precedes; size(): after the last one
  std::uint32_t bits = 0;  // the glMemoryBarrier bits, a combination of barrier_bits
};

// A recorded uniform that changes between replays (Sequence::uniform).
class SequenceUniform {
 public:
  SequenceUniform() = default;
  // Sets the value every covered dispatch uses from the next replay on. Throws
  // TypeMismatchError / SizeMismatchError as run() would for the uniform, and Error when the
  // Sequence is gone or was cleared since the handle was made.
  void set(const Arg& value);
  // The uniform's name in the kernels' source (what uniform(name) was asked for).
  const std::string& name() const noexcept { return variable_.name; }
  // The uniform's declaration (type, components, array size), as the kernel reports it.
  const KernelVariable& variable() const noexcept { return variable_; }
  // How many recorded dispatches it sets.
  std::size_t dispatches() const noexcept { return targets_.size(); }

 private:
  friend class Sequence;
  std::weak_ptr<detail::SequenceData> data_;
  std::uint64_t generation_ = 0;
  KernelVariable variable_;
  std::vector<std::pair<std::size_t, std::size_t>> targets_;  // (dispatch, its uniform)
};

// Compute dispatches recorded once, checked once, and replayed with only the GL calls and
// memory barriers they need (the manual at the top of this header). Move-only.
class Sequence {
 public:
  // An empty sequence for kernels of `context`; `label` names it in errors, describe() and
  // profiles.
  explicit Sequence(const Context& context, std::string label = "sequence");
  ~Sequence();
  // @{
  // Moves the recorded dispatches (SequenceUniform handles keep working); using a moved-from
  // sequence throws Error.
  Sequence(Sequence&&) noexcept;
  Sequence& operator=(Sequence&&) noexcept;
  // @}
  Sequence(const Sequence&) = delete;
  Sequence& operator=(const Sequence&) = delete;

  // Appends the dispatch kernel.run(args, ...) would make, with the same sizes as the run()
  // overload of the same arguments: one invocation per element of the bound Buffers,
  // `items` invocations (1-D, or a 2-D/3-D grid rounded up to whole work groups), or exactly
  // `groups` work groups (record_groups, as run_groups). Throws whatever that run would throw
  // (nothing is recorded then), ArgumentError for a kernel of another Context, a host array
  // or a HostBuffer.
  // @{
  void record(ComputeKernel& kernel, const Args& args);
  void record(ComputeKernel& kernel, const Args& args, std::size_t items);
  void record(ComputeKernel& kernel, const Args& args, Size3 items);
  void record_groups(ComputeKernel& kernel, const Args& args, Size3 groups);
  // @}
  // Appends every ComputeKernel run on this Sequence's Context during `body` (see above).
  // When body throws, nothing it ran is recorded and the exception passes on.
  void capture(const std::function<void()>& body);
  // Whether a capture is recording `context`'s runs now.
  static bool capturing(const Context& context);

  // Issues the recorded dispatches. Throws ArgumentError (nothing issued) when a recorded
  // Buffer or Texture was destroyed, released or replaced since.
  void replay();

  // A handle on uniform `name` of every recorded dispatch that sets it, or of those among
  // dispatches [first, end). Throws UnknownArgumentError when none sets it, ArgumentError for
  // a sampler or image (record again to bind another Texture), a library uniform (gpgpu_...)
  // or a range past size().
  // @{
  SequenceUniform uniform(const std::string& name);
  SequenceUniform uniform(const std::string& name, std::size_t first, std::size_t end);
  // @}
  // The recorded dispatches (indices, in order) that set uniform `name`.
  std::vector<std::size_t> dispatches_with(const std::string& name) const;

  // Forgets every recorded dispatch (handles made before stop working).
  void clear();
  // How many dispatches are recorded (a replayed Sequence recorded into this one counts
  // each of its dispatches).
  std::size_t size() const;
  bool empty() const { return size() == 0; }  // whether nothing is recorded
  // The barriers a replay issues, in order (what the hazard tracking decided).
  std::vector<SequenceBarrier> barriers() const;
  // One line per dispatch (index, kernel label, work groups) and per barrier (its bits).
  std::string describe() const;
  // Whether every recorded Buffer and Texture is still there (replay() would not throw).
  bool replayable() const;

  // The label given at construction (it names the sequence in errors and profiles).
  const std::string& label() const;
  // Times the following replays on the GPU (true) or not (false, the default).
  void set_timing(bool enabled);
  // GPU nanoseconds of the last replay when timing is on and the device has timer queries
  // (GL_EXT_disjoint_timer_query); otherwise -1.
  double last_gpu_ns() const;

 private:
  detail::SequenceData& data() const;
  std::shared_ptr<detail::SequenceData> data_;
};

}  // namespace gpgpu
