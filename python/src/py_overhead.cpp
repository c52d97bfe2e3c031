// gpgpu._gpgpu._overhead: what bench/python/overhead.py needs to measure the cost of Python
// around ComputeKernel::run: the same C++ call, with the same Args (bound once from the same
// NumPy arrays), timed in a C++ loop with no Python in between.
#include <chrono>

#include "py_bindings.hpp"
#include "py_compute_kernel.hpp"

namespace gpgpu::python {

namespace {

// Seconds of each of `repeats` C++ runs of the kernel on the bound keyword arguments.
py::list time_cpp_run(PyComputeKernel& k, int repeats, const py::object& items, py::kwargs kwargs) {
  BoundCall call = k.bind(merge_values(py::none(), kwargs), py::none(), items, false);
  k.context->use();
  std::vector<double> seconds(static_cast<std::size_t>(std::max(repeats, 0)));
  const bool counted = !items.is_none();
  const std::size_t count = counted ? items.cast<std::size_t>() : 0;
  {
    py::gil_scoped_release unlocked;
    for (auto& s : seconds) {
      const auto start = std::chrono::steady_clock::now();
      if (counted) {
        k.owned->run(call.args, count);
      } else {
        k.owned->run(call.args);
      }
      s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
  }
  call.finish();
  py::list out;
  for (double s : seconds) out.append(s);
  return out;
}

// Seconds of each of `repeats` bindings of the keyword arguments alone (matching names,
// checking dtypes and layouts, wrapping the arrays' memory; no GL call): the part of a
// Python run() that could grow with the data if it copied anything.
py::list time_bind(PyComputeKernel& k, int repeats, py::kwargs kwargs) {
  const py::dict values = merge_values(py::none(), kwargs);
  py::list out;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    BoundCall call = k.bind(values, py::none(), py::none(), false);
    call.finish();
    out.append(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return out;
}

}  // namespace

void bind_overhead(py::module_& m) {
  auto sub = m.def_submodule("_overhead", "Timing helpers for bench/python/overhead.py.");
  sub.def("time_cpp_run", &time_cpp_run, py::arg("kernel"), py::arg("repeats"), py::kw_only(),
          py::arg("items") = py::none(),
          "Binds the keyword arguments once, then times `repeats` calls of the C++ "
          "ComputeKernel::run on them; returns the seconds of each call.");
  sub.def("time_bind", &time_bind, py::arg("kernel"), py::arg("repeats"),
          "Times binding the keyword arguments alone (no GL call), `repeats` times; returns "
          "the seconds of each.");
}

}  // namespace gpgpu::python
