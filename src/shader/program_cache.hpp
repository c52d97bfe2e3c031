// Internal: a Context's compiled programs, keyed by their kind and complete source, with a
// bound on how many it keeps (least recently used first out).
//
// A compiled program holds driver memory (on llvmpipe about 100 KB of JIT code each), so a
// process that makes kernels from generated sources would otherwise grow without end.
// Evicting a program from the cache frees it only when no kernel holds it any more.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gpgpu::detail {

class Program;

class ProgramCache {
 public:
  // The program for `key`, now the most recently used; null when absent.
  std::shared_ptr<Program> find(const std::string& key);
  // Adds a program, then evicts the least recently used ones beyond the limit. The
  // context must be current (an evicted program may be deleted).
  void insert(const std::string& key, std::shared_ptr<Program> program);
  // Drops every program (deleted if no kernel holds it; the context must be current).
  void clear() noexcept;
  // Forgets every program's GL name without deleting it (its context is gone elsewhere).
  void abandon_all() noexcept;
  std::size_t size() const noexcept { return entries_.size(); }
  // 0: no limit. Lowering it evicts at once (the context must be current).
  void set_limit(std::size_t limit);
  std::size_t limit() const noexcept { return limit_; }

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<Program> program;
  };
  void evict_beyond_limit();

  std::list<Entry> entries_;  // most recently used first
  // Views of the keys in entries_ (list nodes never move).
  std::unordered_map<std::string_view, std::list<Entry>::iterator> index_;
  std::size_t limit_ = 0;
};

}  // namespace gpgpu::detail
