// Internal: the state a TransferQueue shares with its PendingTransfers — staging rings, the
// chunks in flight and which transfer each belongs to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "gl/context_state.hpp"
#include "gl/gl_fence.hpp"
#include "gpgpu/transfer_queue.hpp"

namespace gpgpu::detail {

// One chunk's worth of staging memory and what is in flight through it.
struct StagingSlot {
  GLuint buffer = 0;       // StagingBuffers: the slot's own GL buffer
  std::size_t offset = 0;  // PersistentMapped: where the slot starts in the ring
  GlFence fence;           // signals when the GPU is done with the slot
  bool busy = false;
  std::uint64_t transfer = 0;
  void* host_destination = nullptr;  // a download chunk: where its bytes go on retirement
  std::size_t bytes = 0;
};

// The staging memory of one direction.
struct StagingRing {
  GLuint buffer = 0;       // PersistentMapped: one buffer holding every slot
  void* mapped = nullptr;  // PersistentMapped: its persistent mapping
  std::vector<StagingSlot> slots;
  std::size_t next = 0;  // slots are used round robin
  bool created = false;
};

class TransferState {
 public:
  TransferState(std::shared_ptr<ContextState> context, const TransferOptions& options);
  ~TransferState();
  TransferState(const TransferState&) = delete;
  TransferState& operator=(const TransferState&) = delete;

  const TransferOptions& options() const noexcept { return options_; }
  ContextState& context() const { return *context_; }
  const std::shared_ptr<ContextState>& context_ptr() const { return context_; }

  // Starts a transfer record; every command issued for it comes before close().
  std::uint64_t open();
  // Ends the record with a fence after its last command.
  void close(std::uint64_t id);

  // Copies host bytes into `destination` at `offset` through staging chunks.
  void upload(std::uint64_t id, GLuint destination, std::size_t offset, const void* data,
              std::size_t bytes);
  // Copies `bytes` of `source` from `offset` into staging; they reach `out` on retirement.
  void download(std::uint64_t id, GLuint source, std::size_t offset, void* out, std::size_t bytes);

  // Blocks until record `id` is complete (download bytes delivered), then forgets it.
  void wait(std::uint64_t id);
  bool ready(std::uint64_t id);
  // Completes every open record (they stay known until their handles wait).
  void finish();
  // Forgets a record whose issuing failed half-way; its chunks deliver nothing.
  void abort(std::uint64_t id) noexcept;

 private:
  struct Record {
    GlFence done;
    std::size_t chunks_left = 0;  // download chunks not yet copied to the host
    bool complete = false;
  };
  StagingRing& ring(bool for_upload);
  StagingSlot& acquire(StagingRing& ring, bool for_upload);
  void retire(StagingRing& ring, StagingSlot& slot, bool for_upload);
  void complete(std::uint64_t id, Record& record);
  void release_rings() noexcept;

  std::shared_ptr<ContextState> context_;
  TransferOptions options_;
  StagingRing upload_ring_, download_ring_;
  std::map<std::uint64_t, Record> records_;
  std::uint64_t next_id_ = 1;
};

}  // namespace gpgpu::detail
