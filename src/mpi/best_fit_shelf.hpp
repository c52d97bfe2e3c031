// A few idle blocks of host staging kept for the next collective: take() hands out the
// smallest block that fits, give() keeps the largest `Kept` (the sizes a program reduces
// again and again). Block has capacity(); the lock lets Communicators on several threads share
// one shelf.
#pragma once

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace gpgpu::mpi::detail {

template <class Block, std::size_t Kept = 4>
class BestFitShelf {
 public:
  template <class Fits>
  std::optional<Block> take(Fits&& fits) {
    std::lock_guard lock(mutex_);
    auto best = blocks_.end();
    for (auto it = blocks_.begin(); it != blocks_.end(); ++it) {
      if (fits(*it) && (best == blocks_.end() || it->capacity() < best->capacity())) best = it;
    }
    if (best == blocks_.end()) return std::nullopt;
    std::optional<Block> b(std::move(*best));
    blocks_.erase(best);
    return b;
  }
  void give(Block block) {
    std::lock_guard lock(mutex_);
    blocks_.push_back(std::move(block));
    if (blocks_.size() <= Kept) return;
    blocks_.erase(std::min_element(
        blocks_.begin(), blocks_.end(),
        [](const Block& a, const Block& b) { return a.capacity() < b.capacity(); }));
  }

 private:
  std::mutex mutex_;
  std::vector<Block> blocks_;
};

}  // namespace gpgpu::mpi::detail
