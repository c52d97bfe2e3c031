#include "shader/program_cache.hpp"

#include "shader/program.hpp"

namespace gpgpu::detail {

std::shared_ptr<Program> ProgramCache::find(const std::string& key) {
  const auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  entries_.splice(entries_.begin(), entries_, it->second);
  return it->second->program;
}

void ProgramCache::insert(const std::string& key, std::shared_ptr<Program> program) {
  if (const auto it = index_.find(key); it != index_.end()) {
    it->second->program = std::move(program);
    entries_.splice(entries_.begin(), entries_, it->second);
    return;
  }
  entries_.push_front({key, std::move(program)});
  index_.emplace(entries_.front().key, entries_.begin());
  evict_beyond_limit();
}

void ProgramCache::clear() noexcept {
  index_.clear();
  entries_.clear();
}

void ProgramCache::abandon_all() noexcept {
  for (auto& entry : entries_) entry.program->abandon();
  clear();
}

void ProgramCache::set_limit(std::size_t limit) {
  limit_ = limit;
  evict_beyond_limit();
}

void ProgramCache::evict_beyond_limit() {
  while (limit_ != 0 && entries_.size() > limit_) {
    index_.erase(entries_.back().key);
    entries_.pop_back();
  }
}

}  // namespace gpgpu::detail
