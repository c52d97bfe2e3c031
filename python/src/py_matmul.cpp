// gpgpu.matmul and gpgpu.MatmulPlan: C = A @ B in float32 on the GPU, from NumPy arrays
// (uploaded and downloaded) or Buffers (device-resident).
//
//   c = gpgpu._gpgpu.matmul(ctx, a, b, method="auto")      # gpgpu.matmul picks the context
//   plan = gpgpu.MatmulPlan(ctx, m, k, n); plan.run(a_buf, b_buf, c_buf)
#include <memory>
#include <string>

#include "gpgpu/error.hpp"
#include "gpgpu/matmul.hpp"
#include "py_arrays.hpp"
#include "py_bindings.hpp"
#include "py_buffer.hpp"
#include "py_gpu_timing.hpp"

namespace gpgpu::python {

namespace {

MatmulOptions options_for(const std::string& method) {
  MatmulOptions o;
  const auto parsed = parse_matmul_method(method);
  if (!parsed) {
    std::string names = "auto";
    for (auto m : all_matmul_methods()) names += ", " + std::string(to_string(m));
    throw ArgumentError("matmul: unknown method '" + method + "'; the methods are " + names);
  }
  o.method = *parsed;
  return o;
}

// A 2-D float32 C-contiguous matrix (copy=True converts), with its rows and columns.
struct Matrix {
  py::array array;
  int rows = 0, cols = 0;
};

int dimension(py::ssize_t extent, const char* what) {
  if (extent <= 0 || extent > 0x7fffffff) {
    throw SizeMismatchError(std::string("matmul: ") + what + " has an extent of " +
                            std::to_string(extent) + "; extents must be 1 to 2^31-1");
  }
  return static_cast<int>(extent);
}

Matrix matrix(const py::array& a, bool copy, const char* what) {
  if (a.ndim() != 2) {
    throw SizeMismatchError(std::string("matmul: ") + what + " must be a 2-D array; " +
                            describe_value(a) + " was given");
  }
  Matrix m;
  m.array = checked_array(a, ElementType::Float32, copy, std::string("matmul: ") + what);
  m.rows = dimension(a.shape(0), what);
  m.cols = dimension(a.shape(1), what);
  return m;
}

std::span<const float> values(const py::array& a) {
  return {static_cast<const float*>(a.data()), static_cast<std::size_t>(a.size())};
}

// c = a @ b from host arrays; into `out` when given (float32, C order, shape (m, n)).
py::array matmul_arrays(PyContext& context, const py::array& a_in, const py::array& b_in,
                        const std::string& method, const py::object& out, bool copy) {
  const Matrix a = matrix(a_in, copy, "a"), b = matrix(b_in, copy, "b");
  if (a.cols != b.rows) {
    throw SizeMismatchError("matmul: a is " + std::to_string(a.rows) + " x " +
                            std::to_string(a.cols) + " and b is " + std::to_string(b.rows) + " x " +
                            std::to_string(b.cols) + "; a's columns must equal b's rows");
  }
  py::array c;
  if (out.is_none()) {
    c = new_array(ElementType::Float32, {a.rows, b.cols});
  } else {
    c = py::reinterpret_borrow<py::array>(out);
    if (!c.writeable()) throw ArgumentError("matmul: out is read-only");
    checked_array(c, ElementType::Float32, false, "matmul: out");
    if (c.ndim() != 2 || c.shape(0) != a.rows || c.shape(1) != b.cols) {
      throw SizeMismatchError("matmul: out must have shape (" + std::to_string(a.rows) + ", " +
                              std::to_string(b.cols) + "); " + describe_value(c) + " was given");
    }
  }
  const MatmulOptions options = options_for(method);
  float* pc = static_cast<float*>(c.mutable_data());
  const auto nc = static_cast<std::size_t>(c.size());
  Context& owner = context.use();
  py::gil_scoped_release unlocked;
  matmul(owner, values(a.array), values(b.array), std::span<float>(pc, nc), a.rows, a.cols, b.cols,
         options);
  return c;
}

std::pair<int, int> buffer_matrix(const PyBuffer& b, const char* what) {
  if (b.shape.size() != 2) {
    throw SizeMismatchError(std::string("matmul: Buffer ") + what +
                            " needs a 2-D shape (set buffer.shape = (rows, cols))");
  }
  if (b.buffer.element_type() != ElementType::Float32) {
    throw TypeMismatchError(std::string("matmul: Buffer ") + what + " must hold float32");
  }
  return {dimension(b.shape[0], what), dimension(b.shape[1], what)};
}

// c = a @ b on device-resident Buffers (2-D shapes); a new Buffer unless out is given.
PyBuffer* matmul_buffers(const PyBuffer& a, const PyBuffer& b, const std::string& method,
                         PyBuffer* out, std::unique_ptr<PyBuffer>& made) {
  const auto [m, k] = buffer_matrix(a, "a");
  const auto [k2, n] = buffer_matrix(b, "b");
  if (k != k2) {
    throw SizeMismatchError("matmul: a has " + std::to_string(k) + " columns, b has " +
                            std::to_string(k2) + " rows");
  }
  Context& owner = a.context->use();
  if (out == nullptr) {
    made = std::make_unique<PyBuffer>();
    made->context = a.context;
    made->shape = {m, n};
    py::gil_scoped_release unlocked;
    made->buffer = Buffer(owner, ElementType::Float32, static_cast<std::size_t>(m) * n);
    out = made.get();
  } else if (buffer_matrix(*out, "out") != std::pair(m, n)) {
    throw SizeMismatchError("matmul: out must have shape (" + std::to_string(m) + ", " +
                            std::to_string(n) + ")");
  }
  const MatmulOptions options = options_for(method);
  py::gil_scoped_release unlocked;
  matmul(owner, a.buffer, b.buffer, out->buffer, m, k, n, options);
  return out;
}

py::object matmul_any(const std::shared_ptr<PyContext>& context, const py::object& a,
                      const py::object& b, const std::string& method, const py::object& out,
                      bool copy) {
  if (py::isinstance<PyBuffer>(a) && py::isinstance<PyBuffer>(b)) {
    PyBuffer* target = out.is_none() ? nullptr : &out.cast<PyBuffer&>();
    std::unique_ptr<PyBuffer> made;
    matmul_buffers(a.cast<const PyBuffer&>(), b.cast<const PyBuffer&>(), method, target, made);
    if (made) return py::cast(std::move(*made));
    return out;
  }
  if (py::isinstance<PyBuffer>(a) || py::isinstance<PyBuffer>(b)) {
    throw ArgumentError("matmul: give two NumPy arrays or two Buffers, not one of each");
  }
  const auto& np = numpy();
  if (!copy && (!py::isinstance<py::array>(a) || !py::isinstance<py::array>(b))) {
    throw TypeMismatchError(
        "matmul: a and b must be NumPy arrays (or Buffers); pass copy=True "
        "to convert other sequences");
  }
  return matmul_arrays(*context, np.attr("asarray")(a), np.attr("asarray")(b), method, out, copy);
}

struct PyMatmulPlan : ContextOwned<MatmulPlan> {
  bool timing = false;
};

std::unique_ptr<PyMatmulPlan> make_plan(std::shared_ptr<PyContext> context, int m, int k, int n,
                                        const std::string& method) {
  auto p = std::make_unique<PyMatmulPlan>();
  p->context = std::move(context);
  const MatmulOptions options = options_for(method);
  Context& owner = p->context->use();
  py::gil_scoped_release unlocked;
  p->owned.emplace(owner, m, k, n, options);
  return p;
}

py::object plan_run(PyMatmulPlan& p, const py::object& a, const py::object& b,
                    const py::object& out, bool copy) {
  MatmulPlan& plan = *p.owned;
  p.context->use();
  if (py::isinstance<PyBuffer>(a)) {
    if (out.is_none() || !py::isinstance<PyBuffer>(out)) {
      throw ArgumentError("MatmulPlan.run: with Buffers a and b, pass a Buffer out= for C");
    }
    auto& c = out.cast<PyBuffer&>();
    py::gil_scoped_release unlocked;
    plan.run(a.cast<const PyBuffer&>().buffer, b.cast<const PyBuffer&>().buffer, c.buffer);
    return out;
  }
  const py::array av = checked_array(py::array(a), ElementType::Float32, copy, "MatmulPlan.run: a");
  const py::array bv = checked_array(py::array(b), ElementType::Float32, copy, "MatmulPlan.run: b");
  py::array c = out.is_none() ? new_array(ElementType::Float32, {plan.m(), plan.n()})
                              : checked_array(py::array(out), ElementType::Float32, false,
                                              "MatmulPlan.run: out");
  if (!c.writeable()) throw ArgumentError("MatmulPlan.run: out is read-only");
  float* pc = static_cast<float*>(c.mutable_data());
  const auto nc = static_cast<std::size_t>(c.size());
  py::gil_scoped_release unlocked;
  plan.run(values(av), values(bv), std::span<float>(pc, nc));
  return c;
}

}  // namespace

void bind_matmul(py::module_& m) {
  m.def("matmul", &matmul_any, py::arg("context"), py::arg("a"), py::arg("b"),
        py::arg("method") = "auto", py::arg("out") = py::none(), py::arg("copy") = false,
        "C = A @ B in float32 (see gpgpu.matmul, which chooses the context for you).");
  m.def(
      "matmul_methods",
      [] {
        py::list names;
        for (auto method : all_matmul_methods()) {
          if (matmul_method_implemented(method)) names.append(std::string(to_string(method)));
        }
        return names;
      },
      "The names method= accepts (besides \"auto\").");
  py::class_<PyMatmulPlan> plan(m, "MatmulPlan", R"(A multiplication of one shape, compiled once.

    plan = gpgpu.MatmulPlan(ctx, m, k, n, method="compute_register_blocked")
    c = plan.run(a, b)                  # NumPy float32 (m, k) and (k, n)
    plan.run(a_buf, b_buf, out=c_buf)   # Buffers: nothing crosses the bus)");
  plan.def(py::init(&make_plan), py::arg("context"), py::arg("m"), py::arg("k"), py::arg("n"),
           py::arg("method") = "auto")
      .def("run", &plan_run, py::arg("a"), py::arg("b"), py::arg("out") = py::none(), py::kw_only(),
           py::arg("copy") = false,
           "C = A @ B: a (m, k) and b (k, n) float32 arrays give a new (m, n) array (or fill "
           "out=); three Buffers keep everything on the GPU. copy=True converts other dtypes.")
      .def_property_readonly(
          "m", [](const PyMatmulPlan& p) { return p.owned->m(); }, "Rows of A and C.")
      .def_property_readonly(
          "k", [](const PyMatmulPlan& p) { return p.owned->k(); }, "Columns of A, rows of B.")
      .def_property_readonly(
          "n", [](const PyMatmulPlan& p) { return p.owned->n(); }, "Columns of B and C.")
      .def_property_readonly(
          "method", [](const PyMatmulPlan& p) { return std::string(to_string(p.owned->method())); },
          "The method that runs (what \"auto\" resolved to).")
      .def_property_readonly(
          "tuning", [](const PyMatmulPlan& p) { return p.owned->tuning().to_string(); },
          "The kernel's tiling, e.g. \"128x128x8 8x8\".");
  def_gpu_timing(plan, "run's kernel");
}

}  // namespace gpgpu::python
