// Internal: PendingRun and PendingTransfer handles for operations of a Context's transfer
// engine. The handle keeps the context state alive, not the engine: after
// Context::release() there is no engine, and wait() says so.
#pragma once

#include <memory>

#include "transfer/async_source.hpp"
#include "transfer/transfer_engine.hpp"

namespace gpgpu::detail {

class EngineSource final : public AsyncSource {
 public:
  explicit EngineSource(std::shared_ptr<ContextState> state) : state_(std::move(state)) {}
  void wait(std::uint64_t id) override;
  bool ready(std::uint64_t id) override;
  void wait_quietly(std::uint64_t id) noexcept override;

 private:
  std::shared_ptr<ContextState> state_;
};

}  // namespace gpgpu::detail
