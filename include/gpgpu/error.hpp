// gpgpu/error.hpp — the exceptions gpgpu throws.
//
// Every failure is reported as a gpgpu::Error (derived from std::runtime_error) whose
// message names what went wrong, what was expected and what was given, so that a user can
// act on it without a debugger. Subclasses let callers react to one kind of failure.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace gpgpu {

// Base of every exception thrown by gpgpu.
class Error : public std::runtime_error {
 public:
  // An error whose what() is `message`.
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// No EGL display or OpenGL ES 3.1+ context could be created.
class ContextError : public Error {
 public:
  using Error::Error;  // takes the message, as Error does
};

// A GL or EGL call reported an error the library did not expect.
class GLError : public Error {
 public:
  // An error whose what() is `message`, for the GL error `code`.
  GLError(const std::string& message, unsigned code) : Error(message), code_(code) {}
  unsigned code() const noexcept { return code_; }  // the GL error code (GL_OUT_OF_MEMORY, ...)

 private:
  unsigned code_;
};

// The GL context is gone (GL_CONTEXT_LOST): the GPU was reset, or a kernel ran past
// ContextOptions::timeout and the Context was abandoned with the work maybe still running.
// Nothing made from the Context can be used any more; make a new Context.
class ContextLostError : public GLError {
 public:
  using GLError::GLError;  // takes the message, as Error does
};

// The driver ran out of memory (GL_OUT_OF_MEMORY).
class OutOfMemoryError : public GLError {
 public:
  using GLError::GLError;  // takes the message, as Error does
};

// The driver broke a promise of the GL specification without raising a GL error (a mapping
// that returned no pointer, a capture that came back short, a sync object that failed).
// Not a mistake of the caller; the message names the call.
class DriverError : public Error {
 public:
  using Error::Error;  // takes the message, as Error does
};

// A kernel run took longer than ContextOptions::timeout. When the work has finished by the
// time this is thrown (drivers that run kernels inside the call, such as llvmpipe) the
// Context stays usable; otherwise it is abandoned and later calls throw ContextLostError.
// Either way the caller's host arrays are unchanged.
class TimeoutError : public Error {
 public:
  using Error::Error;  // takes the message, as Error does
};

// A shader failed to compile or a program failed to link; the message holds the driver's
// log and the offending source lines, numbered as the user wrote them.
class CompileError : public Error {
 public:
  // An error whose what() is `message`, with the driver's info log.
  CompileError(const std::string& message, std::string log) : Error(message), log_(std::move(log)) {}
  const std::string& log() const noexcept { return log_; }  // the driver's info log

 private:
  std::string log_;
};

// An argument does not fit the kernel: unknown or missing name, wrong element type, wrong
// size. Thrown before anything runs, so the caller's data is untouched.
class ArgumentError : public Error {
 public:
  using Error::Error;  // takes the message, as Error does
};

// An argument name matches no active variable of the kernel.
class UnknownArgumentError : public ArgumentError {
 public:
  using ArgumentError::ArgumentError;  // takes the message, as Error does
};

// An active variable of the kernel was given no value.
class MissingArgumentError : public ArgumentError {
 public:
  using ArgumentError::ArgumentError;  // takes the message, as Error does
};

// The host element type (float, int32, uint32) does not match the GLSL declaration.
class TypeMismatchError : public ArgumentError {
 public:
  using ArgumentError::ArgumentError;  // takes the message, as Error does
};

// An array's length does not fit the GLSL declaration or the other arguments.
class SizeMismatchError : public ArgumentError {
 public:
  using ArgumentError::ArgumentError;  // takes the message, as Error does
};

// A request exceeds a limit of the device (buffer size, texture size, work-group count...).
class LimitError : public Error {
 public:
  using Error::Error;  // takes the message, as Error does
};

// A kernel needs more of one device limit than the device allows, or than its device-limit
// profile allows (limits.hpp): too many storage buffers, too large a work group, too much
// shared memory. Thrown when the kernel is linked, as a real device of those limits would
// refuse it; the message names the limit, the kernel's figure and the device's.
class DeviceLimitError : public LimitError {
 public:
  // `message` is what() (it should name the kernel, the limit and both figures); `limit` the
  // GL name of the limit, `needed` the kernel's figure, `allowed` the device's (or profile's).
  DeviceLimitError(const std::string& message, std::string limit, std::int64_t needed,
                   std::int64_t allowed)
      : LimitError(message), limit_(std::move(limit)), needed_(needed), allowed_(allowed) {}
  const std::string& limit() const noexcept { return limit_; }  // "GL_MAX_..."
  // How much of the limit the kernel needs (buffers, invocations, bytes of shared memory).
  std::int64_t needed() const noexcept { return needed_; }
  // The most the device, or its device-limit profile, allows (needed() exceeds it).
  std::int64_t allowed() const noexcept { return allowed_; }

 private:
  std::string limit_;
  std::int64_t needed_ = 0, allowed_ = 0;
};

// A file given to gpgpu (for example a NumPy .npy file) is malformed or unsupported.
class FormatError : public Error {
 public:
  using Error::Error;  // takes the message, as Error does
};

// The device lacks a feature the call needs (an extension, float render targets...).
class UnsupportedError : public Error {
 public:
  using Error::Error;  // takes the message, as Error does
};

}  // namespace gpgpu
