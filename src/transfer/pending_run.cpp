#include "gpgpu/pending_run.hpp"

#include "transfer/async_source.hpp"

namespace gpgpu {

PendingRun::PendingRun(std::shared_ptr<detail::AsyncSource> source, std::uint64_t id)
    : source_(std::move(source)), id_(id) {}

PendingRun::~PendingRun() {
  finish_quietly();
}

PendingRun::PendingRun(PendingRun&& other) noexcept
    : source_(std::move(other.source_)), id_(other.id_), waited_(other.waited_) {
  other.id_ = 0;
  other.waited_ = false;
}

PendingRun& PendingRun::operator=(PendingRun&& other) noexcept {
  if (this != &other) {
    finish_quietly();
    source_ = std::move(other.source_);
    id_ = other.id_;
    waited_ = other.waited_;
    other.id_ = 0;
    other.waited_ = false;
  }
  return *this;
}

void PendingRun::wait() {
  if (waited_) throw TransferError("PendingRun::wait: this run was already waited for");
  if (!source_) {
    throw TransferError("PendingRun::wait: empty handle (default-constructed or moved from)");
  }
  source_->wait(id_);
  waited_ = true;
  source_.reset();
}

bool PendingRun::ready() const {
  if (waited_) return true;
  if (!source_) throw TransferError("PendingRun::ready: empty handle");
  return source_->ready(id_);
}

void PendingRun::finish_quietly() noexcept {
  if (!source_ || waited_) return;
  source_->wait_quietly(id_);
  source_.reset();
}

}  // namespace gpgpu
