#include "shader/program_batch.hpp"

#include <chrono>
#include <list>
#include <thread>

#include "gpgpu/error.hpp"
#include "shader/program_binary_cache.hpp"

namespace gpgpu::detail {

namespace {

// Lets the driver use as many compiler threads as it likes (the extension's default is the
// driver's choice, which may be one).
void raise_compiler_threads(ContextState& state) {
  if (state.compiler_threads_raised) return;
  state.ext.max_shader_compiler_threads(0xFFFFFFFFu);
  glGetError();
  state.compiler_threads_raised = true;
}

// The program of a started link into the context's cache; one that failed is dropped (its
// error comes again when it is asked for alone).
void collect(ContextState& state, const ProgramRequest& r, PendingLink& link) {
  try {
    state.programs.insert(r.key, linked_program(state, link, r.stages, r.options, r.label));
  } catch (const CompileError&) {
  } catch (const UnsupportedError&) {
  }
}

// Starts every link, then collects each as the driver finishes it.
void link_in_parallel(ContextState& state, const std::vector<const ProgramRequest*>& todo) {
  raise_compiler_threads(state);
  std::list<std::pair<const ProgramRequest*, PendingLink>> pending;
  for (const ProgramRequest* r : todo) {
    pending.emplace_back(r, start_link(r->stages, r->options, state.binaries->active()));
  }
  while (!pending.empty()) {
    bool collected = false;
    for (auto it = pending.begin(); it != pending.end();) {
      if (!link_finished(it->second)) {
        ++it;
        continue;
      }
      collect(state, *it->first, it->second);
      it = pending.erase(it);
      collected = true;
    }
    if (!collected) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace

std::size_t compile_together(ContextState& state, const std::vector<ProgramRequest>& requests) {
  state.ensure_current();
  std::vector<const ProgramRequest*> todo;
  for (const auto& r : requests) {
    if (state.programs.find(r.key)) continue;
    if (auto restored = restored_program(state, r.stages, r.options, r.label)) {
      state.programs.insert(r.key, std::move(restored));
      continue;
    }
    todo.push_back(&r);
  }
  const auto start = std::chrono::steady_clock::now();
  if (state.ext.max_shader_compiler_threads != nullptr && todo.size() > 1) {
    link_in_parallel(state, todo);
  } else {
    for (const ProgramRequest* r : todo) {
      PendingLink link = start_link(r->stages, r->options, state.binaries->active());
      collect(state, *r, link);
    }
  }
  state.program_counts.compile_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::size_t held = 0;
  for (const auto& r : requests) held += state.programs.find(r.key) ? 1 : 0;
  return held;
}

}  // namespace gpgpu::detail
