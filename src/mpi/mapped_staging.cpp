// The Buffer allreduce's mapped host staging (mapped_staging.hpp).
#include "mpi/mapped_staging.hpp"

#include <algorithm>
#include <utility>

namespace gpgpu::mpi::detail {

MappedStaging& MappedStaging::of(const Context& context) {
  return context.attachment<MappedStaging>(
      "gpgpu.mpi.allreduce-staging", [&] { return std::make_shared<MappedStaging>(context); });
}

MappedStaging::Lease MappedStaging::take(ElementType type, std::size_t count) {
  count = std::max<std::size_t>(count, 1);
  auto b = shelf_->blocks.take(
      [&](const Block& x) { return x.host.element_type() == type && x.host.size() >= count; });
  if (b) return Lease(shelf_, std::move(*b));
  return Lease(shelf_, Block{HostBuffer(*context_, type, count, HostAccess::ReadWrite), {}});
}

MappedStaging::Lease::~Lease() {
  if (!shelf_ || !block_.host.valid()) return;
  try {
    // Copies back that have finished need no handle; one still running keeps its handle
    // (whose destruction would wait for it) until the block comes back again.
    std::erase_if(block_.uploads, [](const PendingTransfer& u) { return u.waited() || u.ready(); });
    shelf_->blocks.give(std::move(block_));
  } catch (...) {
    // No memory for the list, or a Context released meanwhile: the block is freed instead.
  }
}

PendingTransfer MappedStaging::Lease::download(const Buffer& from, std::size_t first,
                                               std::size_t count) {
  return shelf_->queue.copy(from, block_.host, first, first, count);
}

void MappedStaging::Lease::upload(Buffer& to, std::size_t first, std::size_t count) {
  block_.uploads.push_back(shelf_->queue.copy(block_.host, to, first, first, count));
}

}  // namespace gpgpu::mpi::detail
