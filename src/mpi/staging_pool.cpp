// The Buffer collectives' host staging, reused (staging_pool.hpp).
#include "mpi/staging_pool.hpp"

#include <algorithm>
#include <utility>

#include "mpi/best_fit_shelf.hpp"

namespace gpgpu::mpi::detail {

namespace {

struct Block {
  std::unique_ptr<Word[]> memory;
  std::size_t words = 0;
  std::size_t capacity() const noexcept { return words; }
};

BestFitShelf<Block>& shelf() {
  static BestFitShelf<Block> s;
  return s;
}

}  // namespace

StagingLease::StagingLease(std::size_t words) : size_(words) {
  auto b = shelf().take([&](const Block& x) { return x.words >= words; });
  if (!b) {
    const std::size_t n = std::max<std::size_t>(words, 1);
    b = Block{std::make_unique_for_overwrite<Word[]>(n), n};
  }
  memory_ = std::move(b->memory);
  capacity_ = b->words;
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
    shelf().give({std::move(memory_), capacity_});
  } catch (...) {
    // No memory for the shelf's list: the block, and the array with it, was freed instead.
  }
}

}  // namespace gpgpu::mpi::detail
