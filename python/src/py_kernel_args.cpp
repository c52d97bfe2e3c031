#include "py_kernel_args.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gpgpu/error.hpp"
#include "py_arrays.hpp"
#include "py_buffer.hpp"
#include "py_texture.hpp"

namespace gpgpu::python {

namespace {

// Integers a float32 holds exactly: |v| <= 2^24.
constexpr std::int64_t exact_float_limit = std::int64_t{1} << 24;

bool is_array_variable(const KernelVariable& v) {
  return v.kind == KernelVariable::Kind::StorageBuffer || v.kind == KernelVariable::Kind::Input ||
         v.kind == KernelVariable::Kind::Output;
}

// A storage array of declared length (not runtime-sized): its length is fixed by the kernel.
bool has_fixed_length(const KernelVariable& v) {
  return v.kind == KernelVariable::Kind::StorageBuffer && v.array_size > 0;
}

std::string quoted(const std::string& label, const std::string& name) {
  return label + ": '" + name + "'";
}

// ---- Scalars and small arrays for uniforms ------------------------------------------------

Arg integer_value(const std::string& what, const py::handle& value, const KernelVariable* v) {
  const ElementType target = v ? v->element : ElementType::Int32;
  // Python ints are unbounded: compare them as Python ints before any C++ cast.
  const py::int_ number = py::reinterpret_borrow<py::int_>(value);
  const auto fits = [&](std::int64_t lo, std::int64_t hi) {
    return !(number < py::int_(lo)) && !(number > py::int_(hi));
  };
  switch (target) {
    case ElementType::Float32:
      if (!fits(-exact_float_limit, exact_float_limit)) break;
      return Arg(static_cast<float>(number.cast<std::int64_t>()));
    case ElementType::Int32:
      if (!fits(std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()))
        break;
      return Arg(number.cast<std::int32_t>());
    case ElementType::Uint32:
      if (!fits(0, std::numeric_limits<std::uint32_t>::max())) break;
      return Arg(number.cast<std::uint32_t>());
  }
  throw TypeMismatchError(what + ": " + std::string(py::str(value)) + " does not fit " +
                          std::string(to_string(target)) + " exactly");
}

Arg scalar_value(const std::string& what, const py::handle& value, const KernelVariable* v) {
  // bool before int (bool is an int in Python); GLSL bool uniforms take int32.
  if (py::isinstance<py::bool_>(value) || py::isinstance(value, numpy().attr("bool_"))) {
    if (v && v->element != ElementType::Int32) {
      throw TypeMismatchError(what + ": is declared " + v->glsl_type + "; a bool was given");
    }
    return Arg(static_cast<std::int32_t>(py::cast<bool>(value)));
  }
  const bool is_integer =
      py::isinstance<py::int_>(value) || py::isinstance(value, numpy().attr("integer"));
  if (is_integer)
    return integer_value(what, py::int_(py::reinterpret_borrow<py::object>(value)), v);
  if (v && v->element != ElementType::Float32) {
    throw TypeMismatchError(what + ": is declared " + v->glsl_type + " but " +
                            describe_value(value) + " (" + std::string(py::str(value)) +
                            ") was given; pass an int");
  }
  return Arg(py::cast<double>(value));
}

bool is_scalar(const py::handle& value) {
  if (py::isinstance<py::bool_>(value) || py::isinstance<py::int_>(value) ||
      py::isinstance<py::float_>(value)) {
    return true;
  }
  return py::isinstance(value, numpy().attr("number")) ||
         py::isinstance(value, numpy().attr("bool_"));
}

// A Python sequence for a uniform vector, matrix or array, converted to the declared type
// only when no value changes (ints to float32 within 2^24; no floats to ints).
py::array sequence_values(const std::string& what, const py::handle& value, ElementType target) {
  py::array a = numpy().attr("asarray")(value);
  const char kind = a.dtype().kind();
  const bool integers = kind == 'i' || kind == 'u' || kind == 'b';
  bool ok = false;
  if (target == ElementType::Float32) {
    ok = kind == 'f' ||
         (integers && (a.size() == 0 || (!(a.attr("min")() < py::int_(-exact_float_limit)) &&
                                         !(a.attr("max")() > py::int_(exact_float_limit)))));
  } else if (integers) {
    ok = true;  // checked_array's copy range-checks integers
  }
  if (!ok) {
    throw TypeMismatchError(what + ": cannot use " + describe_value(a) + " for " +
                            std::string(to_string(target)) + " values without changing them");
  }
  return checked_array(a, target, /*copy=*/true, what);
}

// ---- The binder ---------------------------------------------------------------------------

class Binder {
 public:
  Binder(const VariableTable& table, const std::string& label, bool copy, BoundCall& call)
      : table_(table), label_(label), copy_(copy), call_(call) {}

  void bind(const std::string& name, const py::handle& value, bool returned);
  void allocate(const std::string& name, const OutputSizing& sizing);

 private:
  Arg bind_array(const std::string& name, const KernelVariable* v, const Unwrapped& u,
                 bool returned);
  Arg bind_uniform(const std::string& what, const KernelVariable* v, const Unwrapped& u);
  Access access_for(const std::string& what, const KernelVariable* v, const Unwrapped& u,
                    const py::array& a, bool returned) const;
  void remember_reference(const KernelVariable* v, std::size_t values, const py::array* a);

  const VariableTable& table_;
  const std::string& label_;
  bool copy_;
  BoundCall& call_;
  // The first array bound to an array variable: how long outputs gpgpu allocates should be.
  std::optional<std::size_t> reference_elements_;
  int reference_components_ = 1;
  std::vector<py::ssize_t> reference_shape_;
};

void Binder::remember_reference(const KernelVariable* v, std::size_t values, const py::array* a) {
  if (reference_elements_ || v == nullptr || !is_array_variable(*v) || has_fixed_length(*v)) return;
  const auto components = static_cast<std::size_t>(std::max(v->components, 1));
  reference_elements_ = values / components;
  reference_components_ = v->components;
  if (a != nullptr) reference_shape_.assign(a->shape(), a->shape() + a->ndim());
}

Access Binder::access_for(const std::string& what, const KernelVariable* v, const Unwrapped& u,
                          const py::array& a, bool returned) const {
  const bool output = v && v->kind == KernelVariable::Kind::Output;
  const bool input = v && v->kind == KernelVariable::Kind::Input;
  if (output) {
    if (u.access == Access::Read) {
      throw ArgumentError(what + " is an output of the kernel; it cannot be gpgpu.In(...)");
    }
    if (!returned && !a.writeable()) {
      throw ArgumentError(what +
                          " is an output of the kernel but the array is read-only; pass "
                          "a writable array or name it in out= to get a new one");
    }
    return Access::Write;
  }
  if (input) return Access::Read;
  if (u.access) return *u.access;
  if (v && table_.is_readonly(*v)) return Access::Read;  // the shader cannot change it
  if (returned) return Access::ReadWrite;
  return a.writeable() ? Access::ReadWrite : Access::Read;
}

Arg Binder::bind_array(const std::string& name, const KernelVariable* v, const Unwrapped& u,
                       bool returned) {
  const std::string what = quoted(label_, name);
  py::array original;
  if (py::isinstance<py::array>(u.value)) {
    original = py::reinterpret_borrow<py::array>(u.value);
  } else if (copy_) {
    original = numpy().attr("asarray")(u.value);
  } else {
    throw TypeMismatchError(what + " takes a NumPy array or a gpgpu.Buffer; " +
                            describe_value(u.value) +
                            " was given (pass np.asarray(x, dtype=...) "
                            "or copy=True)");
  }
  Access access = access_for(what, v, u, original, returned);
  const std::optional<ElementType> declared = v ? std::optional(v->element) : std::nullopt;
  py::array bound = checked_array(original, declared, copy_, what);
  const bool writes = access != Access::Read;
  if (returned) {
    // A new array for the result: the caller's stays as it is.
    if (bound.ptr() == original.ptr()) bound = py::array(bound.attr("copy")());
    call_.results[name] = bound;
  } else if (writes && bound.ptr() != original.ptr()) {
    if (!original.writeable()) {
      throw ArgumentError(what + ": the array is read-only, so results cannot be copied back");
    }
    if (!numpy().attr("can_cast")(bound.dtype(), original.dtype(), "same_kind").cast<bool>()) {
      throw TypeMismatchError(what + ": results (" + std::string(py::str(bound.dtype())) +
                              ") cannot be copied back into " + describe_value(original) +
                              " without changing their kind; pass an array of the declared type");
    }
    call_.write_backs.emplace_back(original, bound);
  }
  call_.keep_alive.push_back(bound);
  remember_reference(v, static_cast<std::size_t>(bound.size()), &original);
  Arg arg = array_arg(bound, writes);
  if (access == Access::Write) arg.with_access(Access::Write);
  if (u.row_major) arg.with_layout(MatrixLayout::RowMajor);
  return arg;
}

Arg Binder::bind_uniform(const std::string& what, const KernelVariable* v, const Unwrapped& u) {
  Arg arg = [&]() -> Arg {
    if (is_scalar(u.value)) return scalar_value(what, u.value, v);
    py::array a;
    if (py::isinstance<py::array>(u.value)) {
      a = checked_array(py::reinterpret_borrow<py::array>(u.value), v->element, copy_, what);
    } else if (py::isinstance<py::sequence>(u.value) && !py::isinstance<py::str>(u.value)) {
      a = sequence_values(what, u.value, v->element);
    } else {
      throw TypeMismatchError(what + " is a uniform " + v->glsl_type + "; " +
                              describe_value(u.value) + " cannot set it");
    }
    call_.keep_alive.push_back(a);
    return array_arg(a, false);
  }();
  if (u.row_major) arg.with_layout(MatrixLayout::RowMajor);
  return arg;
}

void Binder::bind(const std::string& name, const py::handle& value, bool returned) {
  const std::string what = quoted(label_, name);
  const KernelVariable* v = table_.find(name);
  Unwrapped u = unwrap(value);
  const bool is_array = py::isinstance<py::array>(u.value);  // checked first: the common case
  if (!is_array && py::isinstance<PyBuffer>(u.value)) {
    if (returned)
      throw ArgumentError(what + ": out= returns host arrays; a Buffer stays on the GPU");
    auto& b = u.value.cast<PyBuffer&>();
    call_.keep_alive.push_back(u.value);
    remember_reference(v, b.buffer.size(), nullptr);
    call_.args.emplace_back(name, Arg(b.buffer));
    return;
  }
  if (!is_array && py::isinstance<PyTexture>(u.value)) {
    if (returned)
      throw ArgumentError(what + ": out= returns host arrays; a Texture stays on the GPU");
    call_.keep_alive.push_back(u.value);
    call_.args.emplace_back(name, Arg(u.value.cast<PyTexture&>().texture));
    return;
  }
  if (v == nullptr) {
    // Not a variable of the kernel: bind it as it is, so the C++ call reports the name along
    // with the kernel's variables.
    if (is_scalar(u.value)) {
      call_.args.emplace_back(name, scalar_value(what, u.value, nullptr));
    } else {
      call_.args.emplace_back(name, bind_array(name, nullptr, u, false));
    }
    return;
  }
  if (is_array_variable(*v)) {
    call_.args.emplace_back(name, bind_array(name, v, u, returned));
  } else {
    if (returned) throw ArgumentError(what + " is a " + v->glsl_type + " uniform, not an output");
    call_.args.emplace_back(name, bind_uniform(what, v, u));
  }
}

void Binder::allocate(const std::string& name, const OutputSizing& sizing) {
  const std::string what = quoted(label_, name);
  const KernelVariable* v = table_.find(name);
  if (v == nullptr || !is_array_variable(*v) || v->kind == KernelVariable::Kind::Input) {
    throw ArgumentError(what + " in out= is not an output or storage array of the kernel");
  }
  std::vector<py::ssize_t> shape;
  bool has_component_axis = false;
  if (has_fixed_length(*v)) {
    shape = {static_cast<py::ssize_t>(v->array_size)};
  } else if (sizing.grid) {
    shape = {static_cast<py::ssize_t>(sizing.grid->first),
             static_cast<py::ssize_t>(sizing.grid->second)};
  } else if (sizing.items) {
    shape = {static_cast<py::ssize_t>(*sizing.items)};
  } else if (reference_elements_ && reference_components_ == v->components &&
             !reference_shape_.empty()) {
    shape = reference_shape_;  // like the array it is computed from
    has_component_axis = true;
  } else if (reference_elements_) {
    shape = {static_cast<py::ssize_t>(*reference_elements_)};
  } else {
    throw ArgumentError(what +
                        ": cannot tell how many elements to allocate (no other array "
                        "argument); pass an array for it, or items= / shape=");
  }
  if (v->components > 1 && !has_component_axis) shape.push_back(v->components);
  py::array a = new_array(v->element, shape);
  call_.results[name] = a;
  call_.keep_alive.push_back(a);
  call_.args.emplace_back(name, array_arg(a, true).with_access(Access::Write));
}

}  // namespace

VariableTable::VariableTable(std::vector<KernelVariable> variables,
                             std::set<std::string> readonly_blocks)
    : variables_(std::move(variables)), readonly_(std::move(readonly_blocks)) {
  for (std::size_t i = 0; i < variables_.size(); ++i) {
    index_.emplace(variables_[i].name, i);
    if (!variables_[i].alias.empty()) index_.emplace(variables_[i].alias, i);
  }
}

const KernelVariable* VariableTable::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &variables_[it->second];
}

bool VariableTable::is_readonly(const KernelVariable& v) const {
  return v.kind == KernelVariable::Kind::StorageBuffer &&
         (readonly_.count(v.name) > 0 || (!v.alias.empty() && readonly_.count(v.alias) > 0));
}

OutRequest parse_out(const py::handle& out) {
  OutRequest r;
  if (out.is_none()) return r;
  if (py::isinstance<py::str>(out)) {
    r.names.push_back(out.cast<std::string>());
    r.single = true;
    return r;
  }
  for (const auto& name : out) {
    if (!py::isinstance<py::str>(name)) {
      throw ArgumentError("out= takes a variable name or a list of names, not " +
                          describe_value(name));
    }
    r.names.push_back(name.cast<std::string>());
  }
  return r;
}

py::dict merge_values(const py::object& args, const py::kwargs& kwargs) {
  py::dict values;
  if (!args.is_none()) {
    for (const auto& [key, value] : py::reinterpret_borrow<py::dict>(py::dict(args))) {
      values[key] = value;
    }
  }
  for (const auto& [key, value] : kwargs) {
    if (values.contains(key)) {
      throw ArgumentError("argument '" + std::string(py::str(key)) +
                          "' is given both in args= and as a keyword");
    }
    values[key] = value;
  }
  return values;
}

py::object BoundCall::finish() {
  for (auto& [original, converted] : write_backs) {
    numpy().attr("copyto")(original, converted.attr("reshape")(original.attr("shape")),
                           py::arg("casting") = "same_kind");
  }
  if (result_order.empty()) return py::none();
  if (single_result) return results.at(result_order.front());
  py::tuple t(result_order.size());
  for (std::size_t i = 0; i < result_order.size(); ++i) t[i] = results.at(result_order[i]);
  return t;
}

BoundCall bind_call(const VariableTable& table, const std::string& label, const py::dict& values,
                    const OutRequest& out, const OutputSizing& sizing, bool copy) {
  BoundCall call;
  call.single_result = out.single;
  call.result_order = out.names;
  Binder binder(table, label, copy, call);
  std::set<std::string> returned(out.names.begin(), out.names.end());
  if (returned.size() != out.names.size())
    throw ArgumentError(label + ": out= names a variable twice");
  for (const auto& [key, value] : values) {
    const auto name = key.cast<std::string>();
    binder.bind(name, value, returned.count(name) > 0);
  }
  for (const auto& name : out.names) {
    if (!values.contains(name)) binder.allocate(name, sizing);
  }
  return call;
}

}  // namespace gpgpu::python
