// Internal: what the primitives keep per Context (compiled kernels, scratch Buffers), held
// as a Context attachment so that it dies with the Context.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/primitives.hpp"
#include "gpgpu/sequence.hpp"
#include "tile_flags.hpp"

namespace gpgpu::primitives {

// One kernel variant a planner chose: its Registry key (which names the variant) and its
// GLSL, made on first use. Planners return these from DeviceInfo and the tuning alone, so
// that tests can check every kernel a call would compile against a device's limits.
struct KernelSpec {
  std::string key;
  std::function<std::string()> source;
};

class Registry {
 public:
  // The kernel stored under `key`, compiled from make_source() on first use.
  ComputeKernel& kernel(const Context& ctx, const std::string& key,
                        const std::function<std::string()>& make_source);
  ComputeKernel& kernel(const Context& ctx, const KernelSpec& spec) {
    return kernel(ctx, spec.key, spec.source);
  }
  // A scratch Buffer of at least `count` elements of `type` for `slot` (grown on demand,
  // never shrunk; its contents are undefined). Slots let one primitive call another.
  Buffer& scratch(const Context& ctx, const std::string& slot, ElementType type, std::size_t count);
  // Like scratch, but zero-filled whenever it is (re)allocated; `fresh` tells the caller.
  Buffer& zeroed_scratch(const Context& ctx, const std::string& slot, ElementType type,
                         std::size_t count, bool& fresh);
  std::size_t scratch_bytes() const;
  // A counter per name (for epochs of tile flags): returns 1, 2, 3, ... per call.
  std::uint32_t next_count(const std::string& name);
  void reset_count(const std::string& name);
  // For tests only: the next next_count(name) returns last + 1 (e.g. an epoch near its wrap).
  void set_count(const std::string& name, std::uint32_t last) { counts_[name] = last; }
  // A number kept per name between calls (0 at first), e.g. how much of a scratch Buffer the
  // last call left in a known state.
  std::size_t& value(const std::string& name) { return values_[name]; }

  // Runs `kernel` with those of `args` that name one of its active variables (the driver
  // drops variables a variant does not use; the missing ones are still reported).
  void run(ComputeKernel& kernel, const Args& args, Size3 groups);
  // The same for `items` invocations (ComputeKernel::run with a count).
  void run_items(ComputeKernel& kernel, const Args& args, std::size_t items);

  // Runs `call`, a primitive's dispatches on Buffers, or replays its recording kept under
  // `key` (which must name everything the dispatches depend on: the kind of call, the
  // Buffers, sizes and options). A key's first call runs as it is (making its kernels and
  // scratch); the second records it (a gpgpu::Sequence) and replays that; later ones only
  // replay, with fresh look-back epochs (note_epoch). Recorded again, taking its epochs while
  // recording, when a recorded Buffer was replaced (grown scratch, a caller's new Buffer).
  void replay_call(const Context& ctx, const std::string& key, const std::function<void()>& call);
  // tile_flags' part: while a call is recorded, the next dispatch that takes an `epoch` takes
  // a fresh one of `kind` for `tiles` tiles at every replay.
  void note_epoch(TileWordKind kind, std::size_t tiles);
  // Whether replay_call is recording a call now.
  bool recording() const { return noted_epochs_ != nullptr; }
  // Forgets every recording (the tuning changed: other kernels).
  void forget_recordings() { calls_.clear(); }

  PrimitiveTuning tuning;  // as set by set_primitive_tuning (zeros: device defaults)

 private:
  struct RecordedCall {
    std::size_t calls = 0;
    std::optional<Sequence> sequence;
    struct NotedEpoch {
      TileWordKind kind;
      std::size_t tiles;
    };
    std::vector<NotedEpoch> noted;  // per look-back dispatch, in order
    std::vector<SequenceUniform> epochs;
  };
  void record_call(const Context& ctx, const std::string& key, RecordedCall& r,
                   const std::function<void()>& call);
  std::map<std::string, RecordedCall> calls_;
  std::vector<RecordedCall::NotedEpoch>* noted_epochs_ = nullptr;  // while recording
  std::map<std::string, std::unique_ptr<ComputeKernel>> kernels_;
  Args active(ComputeKernel& kernel, const Args& args);
  std::map<const ComputeKernel*, std::set<std::string>> variable_names_;
  std::map<std::string, Buffer> scratch_;
  std::map<std::string, std::uint32_t> counts_;
  std::map<std::string, std::size_t> values_;
};

// Work groups for `groups` (which may exceed the x limit) as a 2-D grid: x * y >= groups;
// kernels compute gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x and skip
// indices past `groups`.
Size3 grid_for(const Context& ctx, std::size_t groups);

// The Registry of `ctx` (throws if the Context was released).
Registry& registry(const Context& ctx);

}  // namespace gpgpu::primitives
