// Python exception classes mirroring gpgpu::Error's hierarchy, and the translator that turns
// each C++ exception into its class. Where a Python built-in says the same thing, the class
// derives from it too (ArgumentError is a ValueError, TypeMismatchError a TypeError,
// OutOfMemoryError a MemoryError), so generic `except ValueError` code keeps working.
#include <exception>
#include <string>

#include "gpgpu/error.hpp"
#include "gpgpu/pending_transfer.hpp"
#include "py_bindings.hpp"

namespace gpgpu::python {

namespace {

struct ExceptionClasses {
  py::object error, context, gl, out_of_memory, compile, argument, unknown_argument,
      missing_argument, type_mismatch, size_mismatch, limit, device_limit, format, unsupported,
      transfer;
};

ExceptionClasses& classes() {
  // Leaked on purpose: the translator may run during interpreter shutdown, after module
  // globals are gone, and py::object destructors must not run after Python finalises.
  static auto* c = new ExceptionClasses();
  return *c;
}

py::object make_class(py::module_& m, const char* name, const char* doc, py::tuple bases) {
  const std::string qualified = std::string("gpgpu.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (cls == nullptr) throw py::error_already_set();
  auto object = py::reinterpret_steal<py::object>(cls);
  m.attr(name) = object;
  return object;
}

py::tuple bases(py::handle a) {
  return py::make_tuple(a);
}
py::tuple bases(py::handle a, py::handle b) {
  return py::make_tuple(a, b);
}

// Raises `cls(message)` with extra attributes (CompileError.log, GLError.code).
void raise_with(const py::object& cls, const char* message, const char* attribute = nullptr,
                py::object value = py::none()) {
  py::object instance = cls(message);
  if (attribute != nullptr) instance.attr(attribute) = value;
  PyErr_SetObject(cls.ptr(), instance.ptr());
}

// DeviceLimitError with .limit, .needed and .allowed.
void raise_device_limit(const py::object& cls, const DeviceLimitError& e) {
  py::object instance = cls(e.what());
  instance.attr("limit") = py::str(e.limit());
  instance.attr("needed") = py::int_(e.needed());
  instance.attr("allowed") = py::int_(e.allowed());
  PyErr_SetObject(cls.ptr(), instance.ptr());
}

void translate(std::exception_ptr p) {
  auto& c = classes();
  try {
    if (p) std::rethrow_exception(p);
  } catch (const CompileError& e) {
    raise_with(c.compile, e.what(), "log", py::str(e.log()));
  } catch (const OutOfMemoryError& e) {
    raise_with(c.out_of_memory, e.what(), "code", py::int_(e.code()));
  } catch (const GLError& e) {
    raise_with(c.gl, e.what(), "code", py::int_(e.code()));
  } catch (const UnknownArgumentError& e) {
    raise_with(c.unknown_argument, e.what());
  } catch (const MissingArgumentError& e) {
    raise_with(c.missing_argument, e.what());
  } catch (const TypeMismatchError& e) {
    raise_with(c.type_mismatch, e.what());
  } catch (const SizeMismatchError& e) {
    raise_with(c.size_mismatch, e.what());
  } catch (const ArgumentError& e) {
    raise_with(c.argument, e.what());
  } catch (const ContextError& e) {
    raise_with(c.context, e.what());
  } catch (const DeviceLimitError& e) {
    raise_device_limit(c.device_limit, e);
  } catch (const LimitError& e) {
    raise_with(c.limit, e.what());
  } catch (const FormatError& e) {
    raise_with(c.format, e.what());
  } catch (const UnsupportedError& e) {
    raise_with(c.unsupported, e.what());
  } catch (const TransferError& e) {
    raise_with(c.transfer, e.what());
  } catch (const Error& e) {
    raise_with(c.error, e.what());
  }
}

}  // namespace

void bind_errors(py::module_& m) {
  auto& c = classes();
  py::handle runtime(PyExc_RuntimeError), value(PyExc_ValueError), type(PyExc_TypeError),
      memory(PyExc_MemoryError);
  c.error = make_class(m, "Error", "Base of every error gpgpu raises.", bases(runtime));
  c.context = make_class(m, "ContextError",
                         "No EGL display or OpenGL ES 3.1+ context could be made (or the "
                         "Context is current on another thread).",
                         bases(c.error));
  c.gl = make_class(m, "GLError",
                    "A GL or EGL call reported an unexpected error; .code is the GL error.",
                    bases(c.error));
  c.out_of_memory =
      make_class(m, "OutOfMemoryError", "The driver ran out of memory.", bases(c.gl, memory));
  c.compile = make_class(m, "CompileError",
                         "A shader failed to compile or link. The message holds the driver's "
                         "log and the offending source lines, numbered as written; .log is the "
                         "driver's log alone.",
                         bases(c.error));
  c.argument = make_class(m, "ArgumentError",
                          "An argument does not fit the kernel or the call. Raised before "
                          "anything runs: the caller's arrays are unchanged.",
                          bases(c.error, value));
  c.unknown_argument =
      make_class(m, "UnknownArgumentError",
                 "An argument name matches no active variable of the kernel.", bases(c.argument));
  c.missing_argument =
      make_class(m, "MissingArgumentError", "An active variable of the kernel was given no value.",
                 bases(c.argument));
  c.type_mismatch = make_class(m, "TypeMismatchError",
                               "An array's dtype or a value's type does not match the GLSL "
                               "declaration (float32, int32, uint32).",
                               bases(c.argument, type));
  c.size_mismatch = make_class(m, "SizeMismatchError",
                               "An array's length or shape does not fit the declaration or "
                               "the other arguments.",
                               bases(c.argument));
  c.limit = make_class(m, "LimitError", "A request exceeds a limit of the device.", bases(c.error));
  c.device_limit = make_class(m, "DeviceLimitError",
                              "A kernel needs more of one device limit than the device (or its "
                              "device-limit profile) allows; .limit names the GL limit, .needed "
                              "and .allowed give the kernel's and the device's figures.",
                              bases(c.limit));
  c.format = make_class(m, "FormatError", "A file given to gpgpu is malformed.", bases(c.error));
  c.unsupported = make_class(m, "UnsupportedError", "The device lacks a feature the call needs.",
                             bases(c.error));
  c.transfer = make_class(m, "TransferError", "A transfer handle was misused.", bases(c.error));
  py::register_exception_translator(&translate);
}

}  // namespace gpgpu::python
