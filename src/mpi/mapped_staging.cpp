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
  {
    std::lock_guard lock(shelf_->mutex);
    auto& free = shelf_->free;
    auto best = free.end();
    for (auto it = free.begin(); it != free.end(); ++it) {
      const bool fits = it->host.element_type() == type && it->host.size() >= count;
      if (fits && (best == free.end() || it->host.size() < best->host.size())) best = it;
    }
    if (best != free.end()) {
      Block b = std::move(*best);
      free.erase(best);
      return Lease(shelf_, std::move(b));
    }
  }
  return Lease(shelf_, Block{HostBuffer(*context_, type, count, HostAccess::ReadWrite), {}});
}

void MappedStaging::Shelf::give(Block block) {
  // Copies back that have finished need no handle; one still running keeps its handle (whose
  // destruction would wait for it) until the block comes back again.
  std::erase_if(block.uploads, [](const PendingTransfer& u) { return u.waited() || u.ready(); });
  std::lock_guard lock(mutex);
  free.push_back(std::move(block));
  if (free.size() <= kept) return;
  free.erase(std::min_element(free.begin(), free.end(), [](const Block& a, const Block& b) {
    return a.host.size() < b.host.size();
  }));
}

MappedStaging::Lease::~Lease() {
  if (!shelf_ || !block_.host.valid()) return;
  try {
    shelf_->give(std::move(block_));
  } catch (...) {
    // No memory for the list: the block is freed (its pending copies waited for) instead.
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
