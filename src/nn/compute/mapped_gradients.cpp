// MappedGradients: the gradients' host copy in mapped memory (mapped_gradients.hpp).
#include "compute/mapped_gradients.hpp"

#include <algorithm>

namespace gpgpu::nn::detail {

MappedGradients::MappedGradients(const Context& context, Buffer& gradients, std::size_t count)
    : gradients_(gradients),
      count_(count),
      host_(context, ElementType::Float32, std::max<std::size_t>(count, 1), HostAccess::ReadWrite),
      queue_(context),
      staged_from_(count) {}

void MappedGradients::begin() {
  // The last step's uploads read the array when the GPU runs them: done before it changes.
  for (auto& u : uploads_) {
    if (!u.waited()) u.wait();
  }
  uploads_.clear();
  downloads_.clear();
  committed_.clear();
  staged_from_ = count_;
  final_ = false;
}

void MappedGradients::request(std::size_t first) {
  if (first >= staged_from_) return;
  downloads_.push_back({first, queue_.copy(gradients_, host_, first, first, staged_from_ - first)});
  staged_from_ = first;
}

// A copy whose fence has signalled is completed here (PendingTransfer::wait, which then does
// not block: unmapped, it copies out of staging): until then the array holds what it held.
bool MappedGradients::landed(std::size_t first) {
  if (first < staged_from_) return false;  // not all of it asked for
  for (auto& d : downloads_) {
    if (d.first < first || d.copy.waited()) continue;
    if (!d.copy.ready()) return false;
    d.copy.wait();
  }
  return true;
}

std::span<float> MappedGradients::stage(std::size_t first) {
  request(first);
  for (auto& d : downloads_) {
    if (!d.copy.waited()) d.copy.wait();
  }
  return array();
}

void MappedGradients::upload(std::size_t first, std::size_t end) {
  uploads_.push_back(queue_.copy(host_, gradients_, first, first, end - first));
}

bool MappedGradients::read_in_place() const noexcept {
  return host_.is_mapped() && staged_from_ == 0;
}

void MappedGradients::commit(std::size_t first, std::size_t end) {
  if (first >= end || end > count_ || read_in_place()) return;
  upload(first, end);
  committed_.emplace_back(first, end);
}

void MappedGradients::commit_rest() {
  if (read_in_place()) {
    final_ = true;
    return;
  }
  std::sort(committed_.begin(), committed_.end());
  std::size_t from = 0;
  for (const auto& [lo, hi] : committed_) {
    if (lo > from) upload(from, lo);
    from = std::max(from, hi);
  }
  if (from < count_) upload(from, count_);
  committed_.clear();
}

}  // namespace gpgpu::nn::detail
