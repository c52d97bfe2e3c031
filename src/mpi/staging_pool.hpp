// Host memory for the Buffer collectives' staging, kept between calls.
//
// A fresh array per call paid for its pages again each time (zeroed, then faulted in by the
// download's copy): on two H200s a 1 MB allreduce on a Buffer spent 0.10-0.13 ms allocating
// and queueing its download, 0.06 ms with the array reused; 4 MB went from 3.25-3.58 to
// 2.86-2.92 ms (docs/mpi.md). A lease hands out an array at least as long as asked
// (uninitialised) and gives it back when it ends; a few arrays are kept.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "mpi/words.hpp"

namespace gpgpu::mpi::detail {

class StagingLease {
 public:
  StagingLease() = default;                  // holds nothing
  explicit StagingLease(std::size_t words);  // from the pool, or new
  ~StagingLease();                           // back to the pool
  StagingLease(StagingLease&& other) noexcept = default;
  StagingLease& operator=(StagingLease&& other) noexcept;
  StagingLease(const StagingLease&) = delete;
  StagingLease& operator=(const StagingLease&) = delete;

  std::span<Word> words() const noexcept { return {memory_.get(), size_}; }
  Word* data() const noexcept { return memory_.get(); }

 private:
  void give_back() noexcept;

  std::unique_ptr<Word[]> memory_;
  std::size_t capacity_ = 0, size_ = 0;
};

}  // namespace gpgpu::mpi::detail
