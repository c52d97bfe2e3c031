// The Buffer collectives' host staging, reused (staging_pool.hpp).
#include "mpi/staging_pool.hpp"

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

namespace gpgpu::mpi::detail {

namespace {

struct Block {
  std::unique_ptr<Word[]> memory;
  std::size_t capacity = 0;
};

// The arrays not leased now. Kept: the largest few (the sizes a program reduces repeatedly);
// collectives may run on several threads' Communicators, hence the lock.
struct Pool {
  static constexpr std::size_t kept = 4;
  std::mutex mutex;
  std::vector<Block> free;

  Block take(std::size_t words) {
    std::lock_guard lock(mutex);
    auto best = free.end();
    for (auto it = free.begin(); it != free.end(); ++it) {
      if (it->capacity >= words && (best == free.end() || it->capacity < best->capacity)) best = it;
    }
    if (best == free.end()) return {};
    Block b = std::move(*best);
    free.erase(best);
    return b;
  }
  void give(Block b) {
    std::lock_guard lock(mutex);
    free.push_back(std::move(b));
    if (free.size() <= kept) return;
    auto smallest = std::min_element(free.begin(), free.end(), [](const Block& x, const Block& y) {
      return x.capacity < y.capacity;
    });
    free.erase(smallest);
  }
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

StagingLease::StagingLease(std::size_t words) : size_(words) {
  Block b = pool().take(words);
  if (!b.memory) {
    const std::size_t n = std::max<std::size_t>(words, 1);
    b = {std::make_unique_for_overwrite<Word[]>(n), n};
  }
  memory_ = std::move(b.memory);
  capacity_ = b.capacity;
}

StagingLease::~StagingLease() {
  give_back();
}

StagingLease& StagingLease::operator=(StagingLease&& other) noexcept {
  if (this != &other) {
    give_back();
    memory_ = std::move(other.memory_);
    capacity_ = std::exchange(other.capacity_, 0);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void StagingLease::give_back() noexcept {
  if (!memory_) return;
  try {
    pool().give({std::move(memory_), capacity_});
  } catch (...) {
    // No memory for the pool's list: the block, and the array with it, was freed instead.
  }
}

}  // namespace gpgpu::mpi::detail
