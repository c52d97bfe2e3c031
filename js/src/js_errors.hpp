// The C interface's one error channel: every exported function runs its body through
// guarded(), which catches what the library throws and keeps the class name (TypeMismatchError,
// CompileError, ...) and the native message for gpgpu.js to throw as a JavaScript exception.
#pragma once

#include <exception>
#include <string>
#include <utility>

namespace gpgpu::web {

// Records the exception being handled as the last error.
void record_current_exception() noexcept;
// Clears the last error (at the start of every call).
void clear_error() noexcept;

// Runs `body`; returns what it returns, or `failed` after recording the exception.
template <class Result, class Body>
Result guarded(Result failed, Body&& body) noexcept {
  clear_error();
  try {
    return std::forward<Body>(body)();
  } catch (...) {
    record_current_exception();
    return failed;
  }
}

// For bodies that return nothing: 1 on success, 0 on failure.
template <class Body>
int guarded_call(Body&& body) noexcept {
  return guarded(0, [&] {
    std::forward<Body>(body)();
    return 1;
  });
}

// A string handed to JavaScript: valid until the next call that returns one.
const char* handed_out(std::string text);

}  // namespace gpgpu::web
