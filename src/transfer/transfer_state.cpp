#include "transfer/transfer_state.hpp"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "gl/buffer_memory.hpp"
#include "gl/gl_buffer.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::detail {

TransferState::TransferState(std::shared_ptr<ContextState> context, const TransferOptions& options)
    : context_(std::move(context)), options_(options), threads_(options.host_threads) {}

TransferState::~TransferState() {
  release_rings();
}

void TransferState::release_rings() noexcept {
  const bool current = context_ && context_->try_make_current();
  for (StagingRing* r : {&upload_ring_, &download_ring_}) {
    for (auto& slot : r->slots) {
      if (!current) {
        slot.fence.abandon();
        continue;
      }
      slot.fence.reset();
      if (slot.buffer != 0) glDeleteBuffers(1, &slot.buffer);
    }
    // Deleting a mapped buffer unmaps it.
    if (current && r->buffer != 0) glDeleteBuffers(1, &r->buffer);
    *r = StagingRing{};
  }
  for (auto& [id, record] : records_) {
    if (current) {
      record.done.reset();
    } else {
      record.done.abandon();
    }
  }
  if (current) glGetError();
}

std::uint64_t TransferState::open() {
  const std::uint64_t id = next_id_++;
  records_[id];
  return id;
}

void TransferState::close(std::uint64_t id) {
  records_.at(id).done.insert();
}

StagingRing& TransferState::ring(bool for_upload) {
  StagingRing& r = for_upload ? upload_ring_ : download_ring_;
  if (r.created) return r;
  const std::size_t chunk = options_.chunk_bytes;
  r.slots = std::vector<StagingSlot>(options_.slots);
  if (options_.method == TransferMethod::PersistentMapped) {
    const GLbitfield map_flags = (for_upload ? GL_MAP_WRITE_BIT : GL_MAP_READ_BIT) |
                                 GL_MAP_PERSISTENT_BIT_EXT | GL_MAP_COHERENT_BIT_EXT;
    const std::size_t total = chunk * options_.slots;
    GL(glGenBuffers(1, &r.buffer));
    try {
      GL(glBindBuffer(GL_COPY_WRITE_BUFFER, r.buffer));
      // CLIENT_STORAGE: staging belongs in host memory, where the copy engine reads it.
      context_->ext.buffer_storage(GL_COPY_WRITE_BUFFER, static_cast<GLsizeiptr>(total), nullptr,
                                   map_flags | GL_CLIENT_STORAGE_BIT_EXT);
      check_gl("glBufferStorageEXT(staging ring)");
      r.mapped =
          GL(glMapBufferRange(GL_COPY_WRITE_BUFFER, 0, static_cast<GLsizeiptr>(total), map_flags));
      GL(glBindBuffer(GL_COPY_WRITE_BUFFER, 0));
      if (r.mapped == nullptr)
        throw DriverError("glMapBufferRange gave no pointer for a staging ring");
    } catch (...) {
      glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
      glDeleteBuffers(1, &r.buffer);
      glGetError();
      r = StagingRing{};
      throw;
    }
    for (std::size_t i = 0; i < r.slots.size(); ++i) r.slots[i].offset = i * chunk;
  } else {
    try {
      for (auto& slot : r.slots) {
        slot.buffer =
            create_gl_buffer(chunk, nullptr, for_upload ? GL_STREAM_DRAW : GL_STREAM_READ);
      }
    } catch (...) {
      for (auto& slot : r.slots) {
        if (slot.buffer != 0) glDeleteBuffers(1, &slot.buffer);
      }
      glGetError();
      r = StagingRing{};
      throw;
    }
  }
  r.created = true;
  return r;
}

void TransferState::retire(StagingRing& r, StagingSlot& slot, bool for_upload) {
  if (!slot.busy) return;
  slot.fence.wait();
  if (!for_upload && slot.host_destination != nullptr) {
    if (options_.method == TransferMethod::PersistentMapped) {
      // Coherent mapping: the copy's writes are visible once its fence has signalled.
      parallel_memcpy(threads_, slot.host_destination,
                      static_cast<const unsigned char*>(r.mapped) + slot.offset, slot.bytes);
    } else {
      read_gl_buffer(slot.buffer, 0, slot.bytes, slot.host_destination);
    }
    if (auto it = records_.find(slot.transfer);
        it != records_.end() && it->second.chunks_left > 0) {
      --it->second.chunks_left;
    }
  }
  slot.busy = false;
  slot.transfer = 0;
  slot.host_destination = nullptr;
  slot.bytes = 0;
}

StagingSlot& TransferState::acquire(StagingRing& r, bool for_upload) {
  StagingSlot& slot = r.slots[r.next];
  r.next = (r.next + 1) % r.slots.size();
  retire(r, slot, for_upload);  // waits only when every slot is in flight
  return slot;
}

void TransferState::upload(std::uint64_t id, GLuint destination, std::size_t offset,
                           const void* data, std::size_t bytes) {
  if (options_.method == TransferMethod::Direct) {
    write_device_buffer(*context_, destination, offset, bytes, data);
    return;
  }
  StagingRing& r = ring(true);
  const auto* source = static_cast<const unsigned char*>(data);
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t n = std::min(options_.chunk_bytes, bytes - done);
    StagingSlot& slot = acquire(r, true);
    if (options_.method == TransferMethod::PersistentMapped) {
      parallel_memcpy(threads_, static_cast<unsigned char*>(r.mapped) + slot.offset, source + done,
                      n);
      copy_gl_buffer(r.buffer, slot.offset, destination, offset + done, n);
    } else {
      GL(glBindBuffer(GL_COPY_WRITE_BUFFER, slot.buffer));
      // The slot's previous copy has completed (acquire waited for its fence), so the
      // driver need not synchronise, and the old contents may go.
      void* mapped = GL(glMapBufferRange(
          GL_COPY_WRITE_BUFFER, 0, static_cast<GLsizeiptr>(n),
          GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_BUFFER_BIT | GL_MAP_UNSYNCHRONIZED_BIT));
      if (mapped == nullptr) {
        glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
        throw DriverError("glMapBufferRange gave no pointer for a staging buffer");
      }
      std::memcpy(mapped, source + done, n);
      const GLboolean intact = glUnmapBuffer(GL_COPY_WRITE_BUFFER);
      check_gl("glUnmapBuffer");
      GL(glBindBuffer(GL_COPY_WRITE_BUFFER, 0));
      if (intact != GL_TRUE) throw DriverError("a staging buffer was corrupted while mapped");
      copy_gl_buffer(slot.buffer, 0, destination, offset + done, n);
    }
    slot.fence.insert();
    slot.busy = true;
    slot.transfer = id;
    done += n;
  }
}

void TransferState::download(std::uint64_t id, GLuint source, std::size_t offset, void* out,
                             std::size_t bytes) {
  if (options_.method == TransferMethod::Direct) {
    read_device_buffer(*context_, source, offset, bytes, out);
    return;
  }
  // Shader writes to `source` must land before the copy reads it.
  GL(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
  StagingRing& r = ring(false);
  auto* destination = static_cast<unsigned char*>(out);
  Record& record = records_.at(id);
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t n = std::min(options_.chunk_bytes, bytes - done);
    StagingSlot& slot = acquire(r, false);
    if (options_.method == TransferMethod::PersistentMapped) {
      copy_gl_buffer(source, offset + done, r.buffer, slot.offset, n);
    } else {
      copy_gl_buffer(source, offset + done, slot.buffer, 0, n);
    }
    slot.fence.insert();
    slot.busy = true;
    slot.transfer = id;
    slot.host_destination = destination + done;
    slot.bytes = n;
    ++record.chunks_left;
    done += n;
  }
}

void TransferState::complete(std::uint64_t id, Record& record) {
  record.done.wait();
  for (auto& slot : download_ring_.slots) {
    if (slot.busy && slot.transfer == id) retire(download_ring_, slot, false);
  }
  if (record.chunks_left != 0) {
    throw Error(fmt::format("internal: transfer {} lost {} chunk(s)", id, record.chunks_left));
  }
  record.complete = true;
}

void TransferState::wait_quietly(std::uint64_t id) noexcept {
  try {
    if (context_->try_make_current()) wait(id);
  } catch (...) {
    // Destructors must not throw; wait() reports errors to callers who want them.
  }
}

void TransferState::wait(std::uint64_t id) {
  context_->ensure_current();
  const auto it = records_.find(id);
  if (it == records_.end()) throw TransferError("this transfer is unknown to its queue");
  if (!it->second.complete) complete(id, it->second);
  records_.erase(it);
}

bool TransferState::ready(std::uint64_t id) {
  context_->ensure_current();
  const auto it = records_.find(id);
  if (it == records_.end() || it->second.complete) return true;
  return it->second.done.signalled();
}

void TransferState::finish() {
  for (auto& [id, record] : records_) {
    if (!record.complete) complete(id, record);
  }
}

void TransferState::abort(std::uint64_t id) noexcept {
  // A transfer that failed half-way: its issued chunks must not write into the caller's
  // array later, after the caller has seen the exception.
  for (auto& slot : download_ring_.slots) {
    if (slot.busy && slot.transfer == id) slot.host_destination = nullptr;
  }
  records_.erase(id);
}

}  // namespace gpgpu::detail
