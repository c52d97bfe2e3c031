#include "gpgpu/pending_transfer.hpp"

#include "transfer/transfer_state.hpp"

namespace gpgpu {

PendingTransfer::PendingTransfer(std::shared_ptr<detail::TransferState> state, std::uint64_t id,
                                 std::size_t bytes)
    : state_(std::move(state)), id_(id), bytes_(bytes) {}

PendingTransfer::~PendingTransfer() {
  finish_quietly();
}

PendingTransfer::PendingTransfer(PendingTransfer&& other) noexcept
    : state_(std::move(other.state_)),
      id_(other.id_),
      bytes_(other.bytes_),
      waited_(other.waited_) {
  other.id_ = 0;
  other.waited_ = false;
}

PendingTransfer& PendingTransfer::operator=(PendingTransfer&& other) noexcept {
  if (this != &other) {
    finish_quietly();
    state_ = std::move(other.state_);
    id_ = other.id_;
    bytes_ = other.bytes_;
    waited_ = other.waited_;
    other.id_ = 0;
    other.waited_ = false;
  }
  return *this;
}

void PendingTransfer::wait() {
  if (waited_) throw TransferError("PendingTransfer::wait: this transfer was already waited for");
  if (!state_) {
    throw TransferError("PendingTransfer::wait: empty handle (default-constructed or moved from)");
  }
  state_->context().ensure_current();
  state_->wait(id_);
  waited_ = true;
  state_.reset();  // the queue's staging memory need not outlive the handles that waited
}

bool PendingTransfer::ready() const {
  if (waited_) return true;
  if (!state_) throw TransferError("PendingTransfer::ready: empty handle");
  state_->context().ensure_current();
  return state_->ready(id_);
}

void PendingTransfer::finish_quietly() noexcept {
  if (!state_ || waited_) return;
  try {
    if (state_->context().try_make_current()) state_->wait(id_);
  } catch (...) {
    // Destructors must not throw; wait() reports errors to callers who want them.
  }
  state_.reset();
}

}  // namespace gpgpu
