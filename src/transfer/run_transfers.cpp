#include "transfer/run_transfers.hpp"

#include "gl/context_state.hpp"
#include "transfer/engine_source.hpp"

namespace gpgpu::detail {

RunTransfers::RunTransfers(ContextState& state)
    : state_(state.shared_from_this()), engine_(state.engine()) {}

RunTransfers::~RunTransfers() {
  if (ticket_ != 0) engine_.forget(ticket_);
  for (const auto& buffer : temporaries_) engine_.recycle(buffer, completed_, lane_done_);
}

GLuint RunTransfers::temporary(std::size_t bytes) {
  temporaries_.reserve(temporaries_.size() + 1);
  temporaries_.push_back(engine_.acquire(bytes));
  return temporaries_.back().id;
}

bool RunTransfers::is_temporary(GLuint buffer) const noexcept {
  for (const auto& t : temporaries_) {
    if (t.id == buffer) return true;
  }
  return false;
}

void RunTransfers::upload(GLuint buffer, const void* data, std::size_t bytes) {
  if (is_temporary(buffer)) {
    engine_.upload_temporary(buffer, data, bytes);
  } else {
    engine_.upload(buffer, 0, data, bytes);
  }
}

Ticket RunTransfers::ticket() {
  if (ticket_ == 0) ticket_ = engine_.open();
  return ticket_;
}

void RunTransfers::download(GLuint buffer, std::size_t offset, void* out, std::size_t bytes) {
  if (offset == 0 && is_temporary(buffer)) {
    if (auto done = engine_.download_temporary(ticket(), buffer, out, bytes)) lane_done_ = done;
  } else {
    engine_.download(ticket(), buffer, offset, out, bytes);
  }
}

void RunTransfers::download_then(GLuint buffer, std::size_t offset, std::size_t bytes,
                                 std::function<void(const unsigned char*)> commit) {
  auto staging = std::make_shared<std::vector<unsigned char>>(bytes);
  download(buffer, offset, staging->data(), bytes);
  engine_.then(ticket(), [staging, commit = std::move(commit)] { commit(staging->data()); });
}

void RunTransfers::then(std::function<void()> step) {
  engine_.then(ticket(), std::move(step));
}

void RunTransfers::finish() {
  if (ticket_ == 0) return;  // nothing comes back to the host: no need to wait
  engine_.close(ticket_);
  const Ticket ticket = ticket_;
  ticket_ = 0;
  engine_.wait(ticket);
  completed_ = true;  // the run's read-backs, and so everything before them, have finished
}

PendingRun RunTransfers::finish_async() {
  const Ticket t = ticket();
  engine_.close(t);
  ticket_ = 0;
  return PendingRun(std::make_shared<EngineSource>(state_), t);
}

}  // namespace gpgpu::detail
