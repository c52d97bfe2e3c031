#include "js_errors.hpp"

#include <emscripten/emscripten.h>

#include <new>

#include <gpgpu/error.hpp>

namespace gpgpu::web {

namespace {

std::string last_name, last_message, last_log, handed;

// The most derived of gpgpu's error classes (gpgpu/error.hpp) that `error` is.
const char* class_name(const Error& error) {
  if (dynamic_cast<const UnknownArgumentError*>(&error)) return "UnknownArgumentError";
  if (dynamic_cast<const MissingArgumentError*>(&error)) return "MissingArgumentError";
  if (dynamic_cast<const TypeMismatchError*>(&error)) return "TypeMismatchError";
  if (dynamic_cast<const SizeMismatchError*>(&error)) return "SizeMismatchError";
  if (dynamic_cast<const ArgumentError*>(&error)) return "ArgumentError";
  if (dynamic_cast<const ContextLostError*>(&error)) return "ContextLostError";
  if (dynamic_cast<const OutOfMemoryError*>(&error)) return "OutOfMemoryError";
  if (dynamic_cast<const GLError*>(&error)) return "GLError";
  if (dynamic_cast<const ContextError*>(&error)) return "ContextError";
  if (dynamic_cast<const DriverError*>(&error)) return "DriverError";
  if (dynamic_cast<const TimeoutError*>(&error)) return "TimeoutError";
  if (dynamic_cast<const CompileError*>(&error)) return "CompileError";
  if (dynamic_cast<const LimitError*>(&error)) return "LimitError";
  if (dynamic_cast<const FormatError*>(&error)) return "FormatError";
  if (dynamic_cast<const UnsupportedError*>(&error)) return "UnsupportedError";
  return "Error";
}

}  // namespace

void clear_error() noexcept {
  last_name.clear();
  last_message.clear();
  last_log.clear();
}

void record_current_exception() noexcept {
  try {
    throw;
  } catch (const CompileError& e) {
    last_name = "CompileError";
    last_message = e.what();
    last_log = e.log();
  } catch (const Error& e) {
    last_name = class_name(e);
    last_message = e.what();
  } catch (const std::bad_alloc&) {
    last_name = "OutOfMemoryError";
    last_message = "the WebAssembly module ran out of memory";
  } catch (const std::exception& e) {
    last_name = "Error";
    last_message = e.what();
  } catch (...) {
    last_name = "Error";
    last_message = "an unknown C++ exception";
  }
}

const char* handed_out(std::string text) {
  handed = std::move(text);
  return handed.c_str();
}

}  // namespace gpgpu::web

extern "C" {

// Empty when the last call succeeded.
EMSCRIPTEN_KEEPALIVE const char* gpgpu_error_name() {
  return gpgpu::web::last_name.c_str();
}
EMSCRIPTEN_KEEPALIVE const char* gpgpu_error_message() {
  return gpgpu::web::last_message.c_str();
}
// The driver's compile log of the last CompileError.
EMSCRIPTEN_KEEPALIVE const char* gpgpu_error_log() {
  return gpgpu::web::last_log.c_str();
}

}  // extern "C"
