// Internal: the one transfer engine of a Context (docs/data-path.md). Every host array of
// every path — kernel arguments, Buffer and Texture uploads and downloads, matmul operands
// — moves through it:
//
//   upload    small: glBufferSubData (the driver copies it into its command stream);
//             large: chunk by chunk into a staging ring (persistently mapped where the
//             device has GL_EXT_buffer_storage), the host threads filling chunk i+1 while
//             the GPU copies chunk i into the destination (glCopyBufferSubData).
//   download  the GPU copies each chunk into read-back staging and fences it; the chunk
//             reaches the host array when its fence has signalled — on the delivery thread
//             where there is one, else on the thread that waits.
//   tickets   downloads and commit steps (unpacking, compacting texels) are grouped under a
//             ticket: an async run or download. wait(ticket) returns once every chunk of it
//             is delivered and its commit steps have run; tickets complete in any order.
//   pool      device memory for run temporaries (DevicePool).
//
// Every GL call is made on the thread whose Context is current (the caller's); the delivery
// thread touches only thread fences (EGL 1.5: waitable from any thread) and host memory.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gl/gl.hpp"
#include "gl/gl_fence.hpp"
#include "gl/platform.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/data_path.hpp"
#include "gpgpu/element_type.hpp"
#include "transfer/device_pool.hpp"
#include "transfer/thread_pool.hpp"

namespace gpgpu::detail {

struct ContextState;

using Ticket = std::uint64_t;
class CopyLane;  // transfer/copy_lane.hpp

// The options with every "auto" resolved for one device.
// A platform that cannot map buffers (WebGL2) copies directly, on the caller's thread.
DataPathOptions resolve_data_path(const DataPathOptions& options, const DeviceInfo& info,
                                  const PlatformTraits& platform);
// DataPathOptions::copy_context for options whose staging and delivery thread are resolved
// (transfer_engine_lanes.cpp): 1 or -1. Throws UnsupportedError where lanes are asked for
// (1) on a platform without shared contexts (WebGL2).
int resolve_copy_context(const DataPathOptions& resolved, const PlatformTraits& platform);

class TransferEngine {
 public:
  // The context must be current. Makes nothing on the GPU until first used.
  TransferEngine(ContextState& context, const DataPathOptions& options);
  ~TransferEngine();
  TransferEngine(const TransferEngine&) = delete;
  TransferEngine& operator=(const TransferEngine&) = delete;

  // Completes everything in flight, stops the delivery thread and frees every GL object
  // (or abandons them when the context cannot be made current). Idempotent.
  void release() noexcept;

  // Completes everything in flight, then applies new options (rings are remade lazily).
  void configure(const DataPathOptions& options);
  const DataPathOptions& options() const noexcept { return options_; }
  DataPathStats stats() const;

  // ---- device memory for temporaries
  PooledBuffer acquire(std::size_t bytes) { return pool_.acquire(bytes); }
  // `completed`: every command that used the buffer is known to have finished.
  // `after`: a copy lane's fence that must signal too (download_temporary's result).
  void recycle(PooledBuffer buffer, bool completed = false,
               std::shared_ptr<GlFence> after = nullptr) noexcept {
    pool_.recycle(buffer, completed, std::move(after));
  }
  void trim() noexcept { pool_.trim(); }

  // ---- transfers (offsets and sizes in bytes)
  // Copies `bytes` of host data into `destination` at `offset`; returns once `data` may be
  // reused. Ordered before every command issued after it (GL command order).
  void upload(GLuint destination, std::size_t offset, const void* data, std::size_t bytes);
  // A command just issued reads or writes `buffer` (a storage block, a capture target, a
  // vertex input, a buffer view). GL orders a later upload after it, but NVIDIA's driver
  // (H200, 580.159) let glBufferSubData land ahead of commands still queued on the buffer: a
  // capture into it, storage reads of it. An upload into a noted buffer therefore first
  // waits for the work issued so far (one fence); others go straight on.
  void note_gpu_use(GLuint buffer) {
    if (buffer >= dense_names) {
      sparse_used_in_.insert(buffer);
      return;
    }
    if (buffer >= used_in_.size()) used_in_.resize(std::size_t{buffer} + 64, 0);
    used_in_[buffer] = use_epoch_;
  }

  Ticket open();
  // Queues `bytes` of `source` from `offset` for `out`, delivered by wait(ticket). Commands
  // issued before it (kernel writes included) are seen.
  void download(Ticket ticket, GLuint source, std::size_t offset, void* out, std::size_t bytes);

  // ---- run temporaries through the copy lanes (transfer_engine_lanes.cpp)
  // Like upload, into a pooled temporary that no command still uses (the pool's fences say
  // so); with lanes on, the copies come from the upload lane and the context waits for them on
  // the GPU (glWaitSync) before its next command.
  void upload_temporary(GLuint destination, const void* data, std::size_t bytes);
  // Like download, from a pooled temporary; with lanes on, the read-back lane copies it once
  // the GPU has passed what was issued so far. Returns the lane's fence after the copies (the
  // temporary may be reused once it and the pool's own fence have signalled), or null.
  std::shared_ptr<GlFence> download_temporary(Ticket ticket, GLuint source, void* out,
                                              std::size_t bytes);
  // Runs `step` in wait(ticket) after the downloads, in the order added (the thread that
  // waits runs it, with the context current).
  void then(Ticket ticket, std::function<void()> step);
  // Marks the end of the ticket's commands (a fence) and submits them.
  void close(Ticket ticket);
  void wait(Ticket ticket);
  bool ready(Ticket ticket);
  // Drops a ticket whose issuing failed: its chunks deliver nothing, its steps never run.
  void forget(Ticket ticket) noexcept;
  // Completes every open ticket (they stay known until waited).
  void finish();
  std::size_t pending() const;

 private:
  // note_gpu_use's marks: buffer name -> the epoch of its last noted use; an upload into a
  // buffer marked in the current epoch waits for the GPU, then a new epoch starts.
  // Drivers number buffers from 1 up, so a vector indexed by name is the cheap record (a
  // replay marks every block it binds); a name past dense_names goes to the map instead.
  static constexpr GLuint dense_names = 1u << 16;
  std::vector<std::uint32_t> used_in_;
  std::set<GLuint> sparse_used_in_;  // this epoch's marks past dense_names
  std::uint32_t use_epoch_ = 1;
  void wait_for_noted_use(GLuint destination);
  enum class SlotState { Free, InFlight };
  struct Slot {
    std::size_t offset = 0;              // PersistentMapped: where the slot starts in the ring
    GLuint buffer = 0;                   // Mapped: the slot's own buffer
    GlFence fence;                       // the GPU's copy into or out of the slot
    ThreadFence thread_fence = nullptr;  // the same, for the delivery thread
    SlotState state = SlotState::Free;
    bool by_caller = false;  // delivered by the thread that waits, not the delivery thread
    Ticket ticket = 0;
    unsigned char* destination = nullptr;  // a download chunk's bytes go here
    std::size_t bytes = 0;
  };
  struct Ring {
    GLuint buffer = 0;                // PersistentMapped: one buffer for every slot
    unsigned char* mapped = nullptr;  // its persistent mapping
    std::vector<Slot> slots;
    std::size_t next = 0;
    bool made = false;
  };
  struct Record {
    GlFence done;
    std::size_t chunks = 0;  // download chunks not yet delivered
    std::vector<std::function<void()>> steps;
    bool closed = false;
  };

  Ring& ring(bool upload);
  void make_ring(Ring& ring, bool upload);
  void free_ring(Ring& ring, bool current) noexcept;
  Slot& next_upload_slot();
  Slot& next_download_slot();
  bool delivery_thread() const noexcept { return options_.delivery_thread > 0; }
  void retire_download(Slot& slot);  // caller-thread delivery
  // The in-flight download slots this thread delivers: of `ticket`, or all of them.
  std::vector<Slot*> caller_slots(Ticket ticket, bool of_ticket);
  // Copies a signalled chunk out of staging into `destination` (null: its ticket was
  // forgotten); the mutex is not held.
  void deliver(const Slot& slot, unsigned char* destination);
  void upload_chunk(GLuint destination, std::size_t offset, const unsigned char* data,
                    std::size_t bytes);
  // The lanes, started on first use; false (and off from then on) where they cannot be.
  bool lanes();
  void stop_lanes() noexcept;
  void start_delivery_thread();
  void stop_delivery_thread() noexcept;
  void delivery_loop();
  void complete(Ticket ticket, Record& record);

  ContextState& context_;
  DataPathOptions options_;
  DevicePool pool_;
  std::unique_ptr<ThreadPool> threads_;
  Ring up_, down_;
  std::unique_ptr<CopyLane> up_lane_, down_lane_;
  std::map<Ticket, Record> records_;
  Ticket next_ticket_ = 1;
  std::size_t bytes_up_ = 0, bytes_down_ = 0;
  std::size_t lane_batches_ = 0;
  std::string lane_failure_;  // why the lanes could not start, if they could not
  bool released_ = false;

  // Shared with the delivery thread (under mutex_): slot states and chunk counts.
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::size_t> to_deliver_;  // download slots in issue order
  std::thread delivery_;
  bool stopping_ = false;
  Ticket delivering_ = 0;      // the ticket whose chunk the delivery thread is copying
  bool fence_failed_ = false;  // an EGL fence wait failed (the device was lost)
};

}  // namespace gpgpu::detail
