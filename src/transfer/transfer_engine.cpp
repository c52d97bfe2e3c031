#include "transfer/transfer_engine.hpp"

#include "transfer/copy_lane.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "gl/buffer_memory.hpp"
#include "gl/context_state.hpp"
#include "gl/fence_reach.hpp"
#include "gl/gl_buffer.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/pending_transfer.hpp"

namespace gpgpu::detail {

namespace {

constexpr std::size_t kib = std::size_t{1} << 10;
constexpr std::size_t mib = std::size_t{1} << 20;
// Downloads up to this size are delivered by the thread that waits even where there is a
// delivery thread: for a few KiB, handing the chunk to another thread costs more than the
// copy, and a small run's latency is what matters.
constexpr std::size_t caller_delivery_bytes = 256 * kib;

}  // namespace

DataPathOptions resolve_data_path(const DataPathOptions& options, const DeviceInfo& info,
                                  const PlatformTraits& platform) {
  DataPathOptions o = options;
  const bool storage = info.has_buffer_storage();
  if (!platform.mapped_buffers && o.staging != StagingMode::Auto &&
      o.staging != StagingMode::Direct) {
    throw UnsupportedError(fmt::format(
        "DataPathOptions: {} staging maps buffers, which {} cannot (no glMapBufferRange); use "
        "StagingMode::Direct (or Auto)",
        to_string(o.staging), platform.name));
  }
  if (!platform.threads && (o.host_threads > 1 || o.delivery_thread > 0)) {
    throw UnsupportedError(
        fmt::format("DataPathOptions: {} runs on one thread; host_threads must be 0 or 1 and "
                    "delivery_thread 0 or -1",
                    platform.name));
  }
  if (!platform.mapped_buffers) o.staging = StagingMode::Direct;
  if (o.staging == StagingMode::Auto) {
    o.staging = info.is_software ? StagingMode::Direct
                : storage        ? StagingMode::PersistentMapped
                                 : StagingMode::Mapped;
  } else if (o.staging == StagingMode::PersistentMapped && !storage) {
    throw UnsupportedError(
        "DataPathOptions: persistently mapped staging needs GL_EXT_buffer_storage, which this "
        "device lacks; use StagingMode::Mapped (or Auto)");
  }
  // On a CPU device the shaders run on the same cores: copy threads would compete with them.
  // (A platform without threads, WebGL2, copies on the caller's thread alone.)
  if (o.host_threads == 0) {
    o.host_threads = info.is_software || !platform.threads ? 1 : default_copy_threads();
  }
  if (o.chunk_bytes == 0) o.chunk_bytes = info.is_software ? 4 * mib : 8 * mib;
  o.chunk_bytes = (o.chunk_bytes + 4 * kib - 1) / (4 * kib) * (4 * kib);  // whole pages
  if (o.staging_chunks == 0) o.staging_chunks = 8;
  if (o.direct_upload_bytes == 0) o.direct_upload_bytes = 256 * kib;
  if (o.pool_bytes == 0) o.pool_bytes = info.is_software ? 256 * mib : 2048 * mib;
  // The delivery thread copies straight out of persistently mapped memory; the other modes
  // map a buffer per chunk, a GL call that only the context's thread may make. Where fences
  // do not order other threads' and contexts' work, every wait stays on the context's own
  // thread: neither a delivery thread nor copy lanes (gl/fence_reach.hpp).
  const bool in_order = !fences_order_other_threads(info);
  const bool can_deliver =
      o.staging == StagingMode::PersistentMapped && platform.thread_fences && !in_order;
  o.delivery_thread = (o.delivery_thread >= 0 && can_deliver) ? 1 : -1;
  o.copy_context = resolve_copy_context(o, platform);
  if (in_order) o.copy_context = -1;
  return o;
}

namespace {
// Why lanes asked for run in order instead, where that was decided by the device.
std::string in_order_reason(const DataPathOptions& asked, const DataPathOptions& resolved,
                            const DeviceInfo& info) {
  const char* local = fences_stay_local_because(info);
  if (asked.copy_context != 1 || resolved.copy_context == 1 || local == nullptr) return "";
  return fmt::format(
      "on {} the copy lanes' contexts are not kept in order by sync objects (glWaitSync is "
      "ignored; docs/portability.md): transfers stay on the context's own thread",
      local);
}
}  // namespace

TransferEngine::TransferEngine(ContextState& context, const DataPathOptions& options)
    : context_(context),
      options_(resolve_data_path(options, context.info, context.platform)),
      pool_(options_.pool_bytes),
      threads_(std::make_unique<ThreadPool>(options_.host_threads)),
      lane_failure_(in_order_reason(options, options_, context.info)) {}

TransferEngine::~TransferEngine() {
  release();
}

void TransferEngine::configure(const DataPathOptions& options) {
  const DataPathOptions resolved = resolve_data_path(options, context_.info, context_.platform);
  finish();
  stop_lanes();
  stop_delivery_thread();
  free_ring(up_, true);
  free_ring(down_, true);
  options_ = resolved;
  lane_failure_ = in_order_reason(options, resolved, context_.info);
  pool_.set_idle_limit(options_.pool_bytes);
  if (threads_->threads() != options_.host_threads) {
    threads_ = std::make_unique<ThreadPool>(options_.host_threads);
  }
}

DataPathStats TransferEngine::stats() const {
  DataPathStats s;
  s.staging = to_string(options_.staging);
  s.host_threads = options_.host_threads;
  s.chunk_bytes = options_.chunk_bytes;
  s.staging_chunks = options_.staging_chunks;
  s.direct_upload_bytes = options_.direct_upload_bytes;
  s.pool_limit_bytes = options_.pool_bytes;
  s.delivery_thread = options_.delivery_thread > 0;
  s.copy_context = options_.copy_context > 0;
  s.lane_batches = lane_batches_ + (up_lane_ ? up_lane_->batches() : 0) +
                   (down_lane_ ? down_lane_->batches() : 0);
  s.copy_context_failure = lane_failure_;
  s.device_allocations = pool_.allocations();
  s.pool_reuses = pool_.reuses();
  s.pooled_buffers = pool_.idle_buffers();
  s.pooled_bytes = pool_.idle_bytes();
  s.buffers_in_use = pool_.in_use();
  s.trims = pool_.trims();
  s.bytes_uploaded = bytes_up_;
  s.bytes_downloaded = bytes_down_;
  s.pending = pending();
  return s;
}

std::size_t TransferEngine::pending() const {
  std::lock_guard lock(mutex_);
  return records_.size();
}

// ---- staging rings -----------------------------------------------------------------------

TransferEngine::Ring& TransferEngine::ring(bool upload) {
  Ring& r = upload ? up_ : down_;
  if (!r.made) make_ring(r, upload);
  return r;
}

void TransferEngine::make_ring(Ring& r, bool upload) {
  const std::size_t chunk = options_.chunk_bytes;
  std::vector<Slot> slots(options_.staging_chunks);
  if (options_.staging == StagingMode::PersistentMapped) {
    // CLIENT_STORAGE: staging belongs in host memory, where the copy engine reads it and the
    // host threads write it; COHERENT: no flushes between a host write and the GPU's copy.
    const GLbitfield map = (upload ? GL_MAP_WRITE_BIT : GL_MAP_READ_BIT) |
                           GL_MAP_PERSISTENT_BIT_EXT | GL_MAP_COHERENT_BIT_EXT;
    const std::size_t total = chunk * slots.size();
    GLuint id = 0;
    GL(glGenBuffers(1, &id));
    try {
      GL(glBindBuffer(GL_COPY_WRITE_BUFFER, id));
      context_.ext.buffer_storage(GL_COPY_WRITE_BUFFER, static_cast<GLsizeiptr>(total), nullptr,
                                  map | GL_CLIENT_STORAGE_BIT_EXT);
      check_gl("glBufferStorageEXT(staging ring)");
      void* mapped =
          GL(glMapBufferRange(GL_COPY_WRITE_BUFFER, 0, static_cast<GLsizeiptr>(total), map));
      GL(glBindBuffer(GL_COPY_WRITE_BUFFER, 0));
      if (mapped == nullptr)
        throw GLError("glMapBufferRange gave no pointer for a staging ring", 0);
      r.mapped = static_cast<unsigned char*>(mapped);
    } catch (...) {
      glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
      glDeleteBuffers(1, &id);
      glGetError();
      throw;
    }
    r.buffer = id;
    for (std::size_t i = 0; i < slots.size(); ++i) slots[i].offset = i * chunk;
  } else {
    try {
      for (auto& slot : slots) {
        slot.buffer = create_gl_buffer(chunk, nullptr, upload ? GL_STREAM_DRAW : GL_STREAM_READ);
      }
    } catch (...) {
      for (auto& slot : slots) {
        if (slot.buffer != 0) glDeleteBuffers(1, &slot.buffer);
      }
      glGetError();
      throw;
    }
  }
  r.slots = std::move(slots);
  r.next = 0;
  r.made = true;
  if (!upload && delivery_thread()) start_delivery_thread();
}

void TransferEngine::free_ring(Ring& r, bool current) noexcept {
  for (auto& slot : r.slots) {
    delete_thread_fence(context_, slot.thread_fence);
    if (current) {
      slot.fence.reset();
      if (slot.buffer != 0) glDeleteBuffers(1, &slot.buffer);
    } else {
      slot.fence.abandon();
    }
  }
  // Deleting a mapped buffer unmaps it.
  if (current && r.buffer != 0) glDeleteBuffers(1, &r.buffer);
  if (current) glGetError();
  r = Ring{};
}

// ---- uploads -----------------------------------------------------------------------------

TransferEngine::Slot& TransferEngine::next_upload_slot() {
  Slot& slot = up_.slots[up_.next];
  up_.next = (up_.next + 1) % up_.slots.size();
  if (slot.state == SlotState::InFlight) {
    slot.fence.wait();  // the GPU has copied the slot's last chunk out
    slot.state = SlotState::Free;
  }
  return slot;
}

void TransferEngine::upload_chunk(GLuint destination, std::size_t offset, const unsigned char* data,
                                  std::size_t bytes) {
  Slot& slot = next_upload_slot();
  if (options_.staging == StagingMode::PersistentMapped) {
    parallel_memcpy(*threads_, up_.mapped + slot.offset, data, bytes);
    copy_gl_buffer(up_.buffer, slot.offset, destination, offset, bytes);
  } else {
    GL(glBindBuffer(GL_COPY_WRITE_BUFFER, slot.buffer));
    // The slot's previous chunk has been copied out (its fence was waited), so the driver
    // need not synchronise, and the old contents may go.
    void* mapped = GL(glMapBufferRange(
        GL_COPY_WRITE_BUFFER, 0, static_cast<GLsizeiptr>(bytes),
        GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_BUFFER_BIT | GL_MAP_UNSYNCHRONIZED_BIT));
    if (mapped == nullptr) {
      glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
      throw GLError("glMapBufferRange gave no pointer for a staging buffer", 0);
    }
    parallel_memcpy(*threads_, mapped, data, bytes);
    const GLboolean intact = glUnmapBuffer(GL_COPY_WRITE_BUFFER);
    check_gl("glUnmapBuffer");
    GL(glBindBuffer(GL_COPY_WRITE_BUFFER, 0));
    if (intact != GL_TRUE) throw GLError("a staging buffer was corrupted while mapped", 0);
    copy_gl_buffer(slot.buffer, 0, destination, offset, bytes);
  }
  slot.fence.insert();
  slot.state = SlotState::InFlight;
  // Submit now: the GPU copies this chunk while the host threads fill the next one.
  GL(glFlush());
}

void TransferEngine::wait_for_noted_use(GLuint destination) {
  const bool noted = destination < dense_names
                         ? destination < used_in_.size() && used_in_[destination] == use_epoch_
                         : sparse_used_in_.contains(destination);
  if (!noted) return;
  GlFence issued;
  issued.insert();
  issued.wait();
  ++use_epoch_;  // everything noted so far has completed
  sparse_used_in_.clear();
}

void TransferEngine::upload(GLuint destination, std::size_t offset, const void* data,
                            std::size_t bytes) {
  if (bytes == 0) return;
  wait_for_noted_use(destination);
  bytes_up_ += bytes;
  if (options_.staging == StagingMode::Direct || bytes <= options_.direct_upload_bytes) {
    write_device_buffer(context_, destination, offset, bytes, data);
    return;
  }
  ring(true);
  const auto* source = static_cast<const unsigned char*>(data);
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t n = std::min(options_.chunk_bytes, bytes - done);
    upload_chunk(destination, offset + done, source + done, n);
    done += n;
  }
}

// ---- downloads ---------------------------------------------------------------------------

Ticket TransferEngine::open() {
  std::lock_guard lock(mutex_);
  const Ticket ticket = next_ticket_++;
  records_[ticket];
  return ticket;
}

void TransferEngine::deliver(const Slot& slot, unsigned char* destination) {
  if (destination == nullptr) return;  // its ticket was forgotten
  if (options_.staging == StagingMode::PersistentMapped) {
    // Coherent mapping: the copy's writes are visible once its fence has signalled.
    parallel_memcpy(*threads_, destination, down_.mapped + slot.offset, slot.bytes);
  } else {
    read_gl_buffer(slot.buffer, 0, slot.bytes, destination);
  }
}

void TransferEngine::retire_download(Slot& slot) {
  slot.fence.wait();
  unsigned char* destination = nullptr;
  {
    std::lock_guard lock(mutex_);  // forget() may clear it from another call
    destination = slot.destination;
  }
  deliver(slot, destination);
  std::lock_guard lock(mutex_);
  if (auto it = records_.find(slot.ticket); it != records_.end() && it->second.chunks > 0) {
    --it->second.chunks;
  }
  slot.state = SlotState::Free;
  slot.by_caller = false;
  slot.destination = nullptr;
  slot.ticket = 0;
}

TransferEngine::Slot& TransferEngine::next_download_slot() {
  Slot& slot = down_.slots[down_.next];
  down_.next = (down_.next + 1) % down_.slots.size();
  bool caller_retires = !delivery_thread();
  if (delivery_thread()) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return slot.state == SlotState::Free || slot.by_caller; });
    caller_retires = slot.state == SlotState::InFlight;
  }
  if (caller_retires && slot.state == SlotState::InFlight) retire_download(slot);
  return slot;
}

void TransferEngine::download(Ticket ticket, GLuint source, std::size_t offset, void* out,
                              std::size_t bytes) {
  if (bytes == 0) return;
  bytes_down_ += bytes;
  // Shader writes to `source` must land before a copy or a mapping reads it.
  GL(glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT));
  if (options_.staging == StagingMode::Direct) {
    read_device_buffer(context_, source, offset, bytes, out);
    return;
  }
  Ring& r = ring(false);
  auto* destination = static_cast<unsigned char*>(out);
  const bool by_thread = delivery_thread() && bytes > caller_delivery_bytes;
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t n = std::min(options_.chunk_bytes, bytes - done);
    Slot& slot = next_download_slot();
    const bool mapped_ring = options_.staging == StagingMode::PersistentMapped;
    copy_gl_buffer(source, offset + done, mapped_ring ? r.buffer : slot.buffer,
                   mapped_ring ? slot.offset : 0, n);
    ThreadFence thread_fence = nullptr;
    if (by_thread) {
      thread_fence = insert_thread_fence(context_);
      GL(glFlush());  // the delivery thread's wait cannot flush this context
    } else {
      slot.fence.insert();
    }
    {
      std::lock_guard lock(mutex_);
      slot.thread_fence = thread_fence;
      slot.state = SlotState::InFlight;
      slot.by_caller = !by_thread;
      slot.ticket = ticket;
      slot.destination = destination + done;
      slot.bytes = n;
      ++records_.at(ticket).chunks;
      if (by_thread) to_deliver_.push_back(static_cast<std::size_t>(&slot - r.slots.data()));
    }
    if (by_thread) changed_.notify_all();
    done += n;
  }
}

void TransferEngine::then(Ticket ticket, std::function<void()> step) {
  std::lock_guard lock(mutex_);
  records_.at(ticket).steps.push_back(std::move(step));
}

void TransferEngine::close(Ticket ticket) {
  Record* record = nullptr;
  {
    std::lock_guard lock(mutex_);
    record = &records_.at(ticket);
  }
  record->done.insert();
  record->closed = true;
  GL(glFlush());
}

// ---- the delivery thread -----------------------------------------------------------------

void TransferEngine::start_delivery_thread() {
  if (delivery_.joinable()) return;
  stopping_ = false;
  delivery_ = std::thread([this] { delivery_loop(); });
}

void TransferEngine::stop_delivery_thread() noexcept {
  if (!delivery_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  delivery_.join();
}

void TransferEngine::delivery_loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || !to_deliver_.empty(); });
    if (to_deliver_.empty()) return;  // stopping, and every chunk delivered
    Slot& slot = down_.slots[to_deliver_.front()];
    to_deliver_.pop_front();
    const ThreadFence fence = slot.thread_fence;
    lock.unlock();
    const bool signalled = wait_thread_fence(context_, fence);
    lock.lock();
    if (!signalled) fence_failed_ = true;
    delivering_ = slot.ticket;
    unsigned char* destination = slot.destination;  // forget() clears it under the lock
    lock.unlock();
    if (signalled) deliver(slot, destination);
    delete_thread_fence(context_, fence);
    lock.lock();
    if (auto it = records_.find(slot.ticket); it != records_.end() && it->second.chunks > 0) {
      --it->second.chunks;
    }
    slot.thread_fence = nullptr;
    slot.state = SlotState::Free;
    slot.destination = nullptr;
    slot.ticket = 0;
    delivering_ = 0;
    changed_.notify_all();
  }
}

// ---- completion --------------------------------------------------------------------------

void TransferEngine::complete(Ticket ticket, Record& record) {
  if (!record.closed) close(ticket);
  record.done.wait();  // every command of the ticket has executed
  // The chunks this thread delivers (all of them without a delivery thread), then those the
  // delivery thread does.
  for (Slot* slot : caller_slots(ticket, true)) retire_download(*slot);
  if (delivery_thread()) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return record.chunks == 0; });
    if (fence_failed_) {
      throw GLError("waiting for a download's fence failed (was the device lost?)", 0);
    }
  }
}

void TransferEngine::wait(Ticket ticket) {
  Record* record = nullptr;
  {
    std::lock_guard lock(mutex_);
    const auto it = records_.find(ticket);
    if (it == records_.end()) throw TransferError("this operation is unknown to its Context");
    record = &it->second;
  }
  std::vector<std::function<void()>> steps;
  try {
    complete(ticket, *record);
    steps = std::move(record->steps);
  } catch (...) {
    forget(ticket);
    throw;
  }
  {
    std::lock_guard lock(mutex_);
    records_.erase(ticket);
  }
  for (auto& step : steps) step();
}

bool TransferEngine::ready(Ticket ticket) {
  Record* record = nullptr;
  {
    std::lock_guard lock(mutex_);
    const auto it = records_.find(ticket);
    if (it == records_.end()) return true;
    record = &it->second;
  }
  if (!record->closed) return false;
  if (!record->done.signalled()) return false;
  // The ticket's fence has signalled, so are its copies; what is left is chunks the delivery
  // thread has not copied out yet (those this thread delivers do not block on the GPU).
  std::lock_guard lock(mutex_);
  std::size_t by_caller = 0;
  for (const auto& slot : down_.slots) {
    if (slot.state == SlotState::InFlight && slot.by_caller && slot.ticket == ticket) ++by_caller;
  }
  return record->chunks == by_caller;
}

void TransferEngine::forget(Ticket ticket) noexcept {
  std::unique_lock lock(mutex_);
  for (auto& slot : down_.slots) {
    if (slot.state == SlotState::InFlight && slot.ticket == ticket) slot.destination = nullptr;
  }
  // A chunk being copied right now still lands; wait for it, so that nothing is written
  // into the caller's array after this returns.
  changed_.wait(lock, [&] { return delivering_ != ticket; });
  const auto it = records_.find(ticket);
  if (it == records_.end()) return;
  const bool current = context_.try_make_current();
  if (current) {
    it->second.done.reset();
  } else {
    it->second.done.abandon();
  }
  records_.erase(it);
}

void TransferEngine::finish() {
  std::vector<std::pair<Ticket, Record*>> open_records;
  {
    std::lock_guard lock(mutex_);
    for (auto& [ticket, record] : records_) open_records.emplace_back(ticket, &record);
  }
  for (auto& [ticket, record] : open_records) complete(ticket, *record);
  for (auto& slot : up_.slots) {
    if (slot.state == SlotState::InFlight) {
      slot.fence.wait();
      slot.state = SlotState::Free;
    }
  }
  // Chunks of forgotten tickets still occupy their slots: free them (they deliver nothing).
  for (Slot* slot : caller_slots(0, false)) retire_download(*slot);
}

std::vector<TransferEngine::Slot*> TransferEngine::caller_slots(Ticket ticket, bool of_ticket) {
  // Read under the lock: the delivery thread changes the other slots meanwhile. The slots
  // found stay as they are, since only this thread retires slots it delivers.
  std::lock_guard lock(mutex_);
  std::vector<Slot*> found;
  for (auto& slot : down_.slots) {
    if (slot.state == SlotState::InFlight && slot.by_caller &&
        (!of_ticket || slot.ticket == ticket)) {
      found.push_back(&slot);
    }
  }
  return found;
}

void TransferEngine::release() noexcept {
  if (released_) return;
  released_ = true;
  const bool current = context_.try_make_current();
  if (current) {
    try {
      finish();
    } catch (...) {
      // Best effort: the context goes away next, and its GPU work with it.
    }
  }
  stop_lanes();
  stop_delivery_thread();
  free_ring(up_, current);
  free_ring(down_, current);
  {
    std::lock_guard lock(mutex_);
    for (auto& [ticket, record] : records_) {
      if (current) {
        record.done.reset();
      } else {
        record.done.abandon();
      }
    }
    records_.clear();
    to_deliver_.clear();
  }
  if (current) {
    pool_.trim();
  } else {
    pool_.abandon();
  }
  threads_.reset();
}

}  // namespace gpgpu::detail
