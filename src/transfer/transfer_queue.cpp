#include "gpgpu/transfer_queue.hpp"

#include <fmt/format.h>

#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"
#include "resources/device_copy.hpp"
#include "transfer/transfer_state.hpp"

namespace gpgpu {

const char* to_string(TransferMethod method) {
  switch (method) {
    case TransferMethod::Auto:
      return "auto";
    case TransferMethod::PersistentMapped:
      return "persistent-mapped";
    case TransferMethod::StagingBuffers:
      return "staging-buffers";
    case TransferMethod::Direct:
      return "direct";
  }
  return "?";
}

namespace {

void check_buffer(const char* what, const Buffer& buffer, const detail::TransferState& state) {
  if (!buffer.valid()) {
    throw ArgumentError(fmt::format("TransferQueue::{}: the Buffer is empty or released", what));
  }
  if (buffer.context_state() != state.context_ptr()) {
    throw ArgumentError(
        fmt::format("TransferQueue::{}: the Buffer belongs to another Context", what));
  }
}

void check_host_buffer(const char* what, const HostBuffer& buffer,
                       const detail::TransferState& state) {
  if (!buffer.valid()) {
    throw ArgumentError(
        fmt::format("TransferQueue::{}: the HostBuffer is empty or released", what));
  }
  if (buffer.context_state() != state.context_ptr()) {
    throw ArgumentError(
        fmt::format("TransferQueue::{}: the HostBuffer belongs to another Context", what));
  }
}

void check_types(const char* what, ElementType device, ElementType host) {
  if (device != host) {
    throw TypeMismatchError(
        fmt::format("TransferQueue::{}: the Buffer holds {} but the host data is {}", what,
                    to_string(device), to_string(host)));
  }
}

void check_range(const char* what, const char* whose, std::size_t offset, std::size_t count,
                 std::size_t size) {
  if (offset > size || count > size - offset) {
    throw SizeMismatchError(
        fmt::format("TransferQueue::{}: elements [{}, {}) are outside the {} of {} elements", what,
                    offset, offset + count, whose, size));
  }
}

}  // namespace

TransferQueue::TransferQueue(const Context& context, const TransferOptions& options) {
  TransferOptions o = options;
  const auto& info = context.info();
  detail::refuse_without(context.state()->platform.mapped_buffers, *context.state(),
                         "a TransferQueue",
                         "it stages through mapped buffers, which WebGL2 cannot map; use "
                         "Buffer::upload and Buffer::download");
  const bool storage = info.has_buffer_storage() && context.state()->ext.buffer_storage != nullptr;
  if (o.method == TransferMethod::Auto) {
    o.method = storage ? TransferMethod::PersistentMapped : TransferMethod::StagingBuffers;
  } else if (o.method == TransferMethod::PersistentMapped && !storage) {
    throw UnsupportedError(
        "TransferQueue: persistent mapping needs GL_EXT_buffer_storage, which this device lacks; "
        "use TransferMethod::StagingBuffers (or Auto)");
  }
  if (o.chunk_bytes == 0 || o.slots == 0 || o.host_threads == 0) {
    throw ArgumentError(fmt::format(
        "TransferQueue: chunk_bytes ({}), slots ({}) and host_threads ({}) must be positive",
        o.chunk_bytes, o.slots, o.host_threads));
  }
  // Chunks are copied with glCopyBufferSubData, whose offsets must keep 4-byte elements whole.
  o.chunk_bytes = (o.chunk_bytes + element_size - 1) / element_size * element_size;
  context.make_current();
  state_ = std::make_shared<detail::TransferState>(context.state(), o);
}

TransferQueue::~TransferQueue() = default;
TransferQueue::TransferQueue(TransferQueue&&) noexcept = default;
TransferQueue& TransferQueue::operator=(TransferQueue&&) noexcept = default;

TransferMethod TransferQueue::method() const noexcept {
  return state_->options().method;
}
const TransferOptions& TransferQueue::options() const noexcept {
  return state_->options();
}

PendingTransfer TransferQueue::upload_bytes(Buffer& destination, ElementType type, const void* data,
                                            std::size_t count, std::size_t offset) {
  if (!state_) throw Error("this TransferQueue was moved from");
  check_buffer("upload", destination, *state_);
  check_types("upload", destination.element_type(), type);
  check_range("upload", "Buffer", offset, count, destination.size());
  state_->context().ensure_current();
  const std::uint64_t id = state_->open();
  try {
    if (count > 0) {
      state_->upload(id, destination.gl_name(), offset * element_size, data, count * element_size);
    }
    state_->close(id);
  } catch (...) {
    state_->abort(id);
    throw;
  }
  return PendingTransfer(state_, id, count * element_size);
}

PendingTransfer TransferQueue::download_bytes(const Buffer& source, ElementType type, void* data,
                                              std::size_t count, std::size_t offset) {
  if (!state_) throw Error("this TransferQueue was moved from");
  check_buffer("download", source, *state_);
  check_types("download", source.element_type(), type);
  check_range("download", "Buffer", offset, count, source.size());
  state_->context().ensure_current();
  const std::uint64_t id = state_->open();
  try {
    if (count > 0) {
      state_->download(id, source.gl_name(), offset * element_size, data, count * element_size);
    }
    state_->close(id);
  } catch (...) {
    state_->abort(id);
    throw;
  }
  return PendingTransfer(state_, id, count * element_size);
}

PendingTransfer TransferQueue::copy(const HostBuffer& source, Buffer& destination,
                                    std::size_t source_offset, std::size_t destination_offset,
                                    std::size_t count) {
  if (!state_) throw Error("this TransferQueue was moved from");
  check_host_buffer("copy", source, *state_);
  check_buffer("copy", destination, *state_);
  check_types("copy", destination.element_type(), source.element_type());
  if (count == 0 && source_offset <= source.size()) count = source.size() - source_offset;
  check_range("copy", "HostBuffer", source_offset, count, source.size());
  check_range("copy", "Buffer", destination_offset, count, destination.size());
  if (!source.is_mapped()) {
    return upload_bytes(
        destination, source.element_type(),
        static_cast<const unsigned char*>(source.data()) + source_offset * element_size, count,
        destination_offset);
  }
  return device_copy(source.gl_name(), source_offset, destination.gl_name(), destination_offset,
                     count, true);
}

PendingTransfer TransferQueue::copy(const Buffer& source, HostBuffer& destination,
                                    std::size_t source_offset, std::size_t destination_offset,
                                    std::size_t count) {
  if (!state_) throw Error("this TransferQueue was moved from");
  check_buffer("copy", source, *state_);
  check_host_buffer("copy", destination, *state_);
  check_types("copy", source.element_type(), destination.element_type());
  if (count == 0 && source_offset <= source.size()) count = source.size() - source_offset;
  check_range("copy", "Buffer", source_offset, count, source.size());
  check_range("copy", "HostBuffer", destination_offset, count, destination.size());
  if (!destination.is_mapped()) {
    return download_bytes(
        source, source.element_type(),
        static_cast<unsigned char*>(destination.data()) + destination_offset * element_size, count,
        source_offset);
  }
  return device_copy(source.gl_name(), source_offset, destination.gl_name(), destination_offset,
                     count, true);
}

PendingTransfer TransferQueue::copy(const Buffer& source, Buffer& destination,
                                    std::size_t source_offset, std::size_t destination_offset,
                                    std::size_t count) {
  if (!state_) throw Error("this TransferQueue was moved from");
  check_buffer("copy", source, *state_);
  check_buffer("copy", destination, *state_);
  check_types("copy", destination.element_type(), source.element_type());
  if (count == 0 && source_offset <= source.size()) count = source.size() - source_offset;
  check_range("copy", "source Buffer", source_offset, count, source.size());
  check_range("copy", "destination Buffer", destination_offset, count, destination.size());
  if (source.gl_name() == destination.gl_name() && source_offset < destination_offset + count &&
      destination_offset < source_offset + count) {
    throw ArgumentError(fmt::format(
        "TransferQueue::copy: elements [{}, {}) and [{}, {}) of one Buffer overlap", source_offset,
        source_offset + count, destination_offset, destination_offset + count));
  }
  return device_copy(source.gl_name(), source_offset, destination.gl_name(), destination_offset,
                     count, false);
}

PendingTransfer TransferQueue::device_copy(unsigned source, std::size_t source_offset,
                                           unsigned destination, std::size_t destination_offset,
                                           std::size_t count, bool host_memory) {
  state_->context().ensure_current();
  const std::uint64_t id = state_->open();
  try {
    // A HostBuffer lives in host memory: the GPU's copy engine moves it across the bus
    // (0.95-0.97x of CUDA's pinned copies, docs/memory.md), not a compute copy.
    detail::copy_on_device(
        state_->context(), source, source_offset * element_size, destination,
        destination_offset * element_size, count * element_size,
        {host_memory ? detail::DeviceCopyMethod::CopyBufferSubData : detail::DeviceCopyMethod::Auto,
         0});
    state_->close(id);
  } catch (...) {
    state_->abort(id);
    throw;
  }
  return PendingTransfer(state_, id, count * element_size);
}

void TransferQueue::finish() {
  if (!state_) return;
  state_->context().ensure_current();
  state_->finish();
}

}  // namespace gpgpu
