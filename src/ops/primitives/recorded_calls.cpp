// Primitive calls replayed from recorded sequences (Registry::replay_call): a sort issues a
// dozen or more small dispatches per call, each of which run() would check and bind again.
#include <vector>

#include "gpgpu/error.hpp"
#include "primitive_registry.hpp"
#include "tile_flags.hpp"

namespace gpgpu::primitives {

namespace {
// Distinct recordings kept per Context (each holds its dispatches' arguments, not memory).
constexpr std::size_t max_recordings = 64;
}  // namespace

void Registry::note_epoch(TileWordKind kind, std::size_t tiles) {
  if (noted_epochs_ != nullptr) noted_epochs_->push_back({kind, tiles});
}

void Registry::record_call(const Context& ctx, const std::string& key, RecordedCall& r,
                           const std::function<void()>& call) {
  r.sequence.emplace(ctx, "gpgpu " + key);
  r.noted.clear();
  r.epochs.clear();
  noted_epochs_ = &r.noted;
  try {
    r.sequence->capture(call);
  } catch (...) {
    noted_epochs_ = nullptr;
    r.sequence.reset();
    throw;
  }
  noted_epochs_ = nullptr;
  // Each tile_flags call is followed by the one dispatch that takes its epoch.
  const auto takers = r.sequence->dispatches_with("epoch");
  if (takers.size() != r.noted.size()) {
    r.sequence.reset();
    throw Error("gpgpu primitives: a recorded call's look-back epochs do not match its dispatches");
  }
  for (const std::size_t i : takers) r.epochs.push_back(r.sequence->uniform("epoch", i, i + 1));
}

void Registry::replay_call(const Context& ctx, const std::string& key,
                           const std::function<void()>& call) {
  // Inside a recording (this one's, or a caller's capture): the dispatches go there.
  if (Sequence::capturing(ctx)) return call();
  if (calls_.size() >= max_recordings && !calls_.count(key)) calls_.clear();
  RecordedCall& r = calls_[key];
  if (r.calls++ == 0) return call();  // kernels and scratch are made here
  // Fresh epochs only for a recording that will be replayed: one that is recorded again
  // takes its own while recording, so a call takes one epoch per look-back dispatch whether
  // or not its key met a stale recording (a destroyed Buffer's GL name taken by a new one,
  // which drivers such as NVIDIA's hand out again at once). tile_flags may zero the words
  // when its epochs wrap; it does not replace them here (scratch only grows and the
  // recorded words are still bound), and the check after it records again if it did.
  if (r.sequence && r.sequence->replayable()) {
    for (std::size_t k = 0; k < r.noted.size(); ++k) {
      r.epochs[k].set(tile_flags(ctx, r.noted[k].tiles, r.noted[k].kind).epoch);
    }
  }
  if (!r.sequence || !r.sequence->replayable()) {
    try {
      record_call(ctx, key, r, call);  // its epochs are fresh: tile_flags ran while recording
    } catch (const UnsupportedError&) {
      // Scratch grown (and zero-filled) meanwhile, or look-back words zeroed as their epochs
      // wrap: an upload cannot be recorded. Run it as it is; the next call records it.
      return call();
    }
  }
  r.sequence->replay();
}

}  // namespace gpgpu::primitives
