// The transfer engine's copy lanes (copy_lane.hpp): run temporaries uploaded and read back by
// copies issued from contexts of their own, so that copies and kernels of consecutive runs
// may overlap on the GPU. Only temporaries take this route: the pool guarantees that no
// command of the Context's context still uses one when it is handed out, and it is handed out
// again only after the lane's fences (download_temporary's result) have signalled, so no
// other ordering between the contexts is needed. Buffers the user holds keep the in-order
// path of transfer_engine.cpp.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "gl/context_state.hpp"
#include "gpgpu/error.hpp"
#include "transfer/copy_lane.hpp"
#include "transfer/transfer_engine.hpp"

namespace gpgpu::detail {

namespace {

// $GPGPU_COPY_CONTEXT=0|1: the default where the option says auto.
int environment_default() {
  const char* env = std::getenv("GPGPU_COPY_CONTEXT");
  if (env == nullptr) return 0;
  if (std::strcmp(env, "1") == 0) return 1;
  if (std::strcmp(env, "0") == 0) return -1;
  return 0;
}

}  // namespace

int resolve_copy_context(const DataPathOptions& o, const PlatformTraits& platform) {
  if (o.copy_context < -1 || o.copy_context > 1) {
    throw ArgumentError(
        fmt::format("DataPathOptions: copy_context = {}; expected -1, 0 or 1", o.copy_context));
  }
  if (o.copy_context == 1 && !platform.shared_contexts) {
    throw UnsupportedError(fmt::format(
        "DataPathOptions: copy_context = 1 asks for copy lanes, second contexts on threads of "
        "their own, which {} cannot make (one context per canvas, one thread); use 0 or -1",
        platform.name));
  }
  // The lanes copy through the persistently mapped rings, and read-backs are delivered by the
  // delivery thread (the lane's fences are waited there).
  const bool possible = o.staging == StagingMode::PersistentMapped && o.delivery_thread > 0;
  int wanted = o.copy_context != 0 ? o.copy_context : environment_default();
  // Auto: off. Measured on the H200 (2026-11-26, docs/data-path.md): the lanes are correct
  // there but slower — SAXPY 2^24 from host arrays 8.99 ms with them against 6.75 ms without,
  // the 1 GiB pipeline 0.88x of the in-order one — the driver serialises the two contexts'
  // work rather than overlapping it. On a CPU device there is no copy engine at all.
  if (wanted == 0) wanted = -1;
  return wanted > 0 && possible ? 1 : -1;
}

bool TransferEngine::lanes() {
  if (options_.copy_context <= 0) return false;
  if (up_lane_ && down_lane_) return true;
  std::string why;
  up_lane_ = CopyLane::start(context_, why);
  if (up_lane_) down_lane_ = CopyLane::start(context_, why);
  if (!up_lane_ || !down_lane_) {
    stop_lanes();
    options_.copy_context = -1;  // the in-order path serves from now on
    lane_failure_ = why;         // stats() says why
    return false;
  }
  return true;
}

void TransferEngine::stop_lanes() noexcept {
  if (up_lane_) lane_batches_ += up_lane_->batches();
  if (down_lane_) lane_batches_ += down_lane_->batches();
  up_lane_.reset();
  down_lane_.reset();
}

void TransferEngine::upload_temporary(GLuint destination, const void* data, std::size_t bytes) {
  if (bytes <= options_.direct_upload_bytes || !lanes()) {
    upload(destination, 0, data, bytes);
    return;
  }
  bytes_up_ += bytes;
  ring(true);
  const auto* source = static_cast<const unsigned char*>(data);
  GLsync last = nullptr;
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t n = std::min(options_.chunk_bytes, bytes - done);
    Slot& slot = next_upload_slot();
    parallel_memcpy(*threads_, up_.mapped + slot.offset, source + done, n);
    const LaneCopy copy{up_.buffer, slot.offset, destination, done, n};
    const LaneFences f = up_lane_->issue(nullptr, {&copy, 1}, false);
    slot.fence = GlFence::adopt(f.done);
    slot.state = SlotState::InFlight;
    last = f.done;
    done += n;
  }
  // The kernel that reads the temporary comes after the copies on the GPU (the slot's fence
  // outlives this wait: it is deleted only when the slot is refilled).
  GL(glWaitSync(last, 0, GL_TIMEOUT_IGNORED));
}

std::shared_ptr<GlFence> TransferEngine::download_temporary(Ticket ticket, GLuint source, void* out,
                                                            std::size_t bytes) {
  if (bytes <= options_.direct_upload_bytes || !lanes()) {
    download(ticket, source, 0, out, bytes);
    return nullptr;
  }
  bytes_down_ += bytes;
  // The lane copies once the GPU has passed every command issued so far here (the kernel
  // that wrote the temporary), with its shader writes made visible to copies.
  GL(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
  GlFence after;
  after.insert();
  GL(glFlush());
  Ring& r = ring(false);
  auto* destination = static_cast<unsigned char*>(out);
  GLsync wait_for = after.get();
  std::shared_ptr<GlFence> last;
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t n = std::min(options_.chunk_bytes, bytes - done);
    Slot& slot = next_download_slot();
    const LaneCopy copy{source, done, r.buffer, slot.offset, n};
    const LaneFences f = down_lane_->issue(wait_for, {&copy, 1}, true);
    wait_for = nullptr;  // later chunks follow in the lane's order
    last = std::make_shared<GlFence>(GlFence::adopt(f.done));
    {
      std::lock_guard lock(mutex_);
      slot.thread_fence = f.thread;
      slot.state = SlotState::InFlight;
      slot.by_caller = false;
      slot.ticket = ticket;
      slot.destination = destination + done;
      slot.bytes = n;
      ++records_.at(ticket).chunks;
      to_deliver_.push_back(static_cast<std::size_t>(&slot - r.slots.data()));
    }
    changed_.notify_all();
    done += n;
  }
  return last;
}

}  // namespace gpgpu::detail
