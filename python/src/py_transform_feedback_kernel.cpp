// gpgpu.TransformFeedbackKernel: a vertex shader run once per element, its `out` variables
// captured into NumPy arrays or Buffers (the method of gpgpu.js).
//
//   k = gpgpu.TransformFeedbackKernel(ctx, "in float a; out float b; void main() { b = 2.0 * a; }")
//   b = k.run(a=a, out="b")
#include <memory>
#include <optional>
#include <string>

#include "gpgpu/transform_feedback_kernel.hpp"
#include "py_bindings.hpp"
#include "py_context.hpp"
#include "py_kernel_args.hpp"
#include "py_kernel_common.hpp"

namespace gpgpu::python {

namespace {

struct PyTransformFeedbackKernel {
  PyTransformFeedbackKernel() = default;
  PyTransformFeedbackKernel(const PyTransformFeedbackKernel&) = delete;
  PyTransformFeedbackKernel& operator=(const PyTransformFeedbackKernel&) = delete;
  ~PyTransformFeedbackKernel() {
    if (context && kernel) context->dispose(std::move(*kernel));
  }

  std::shared_ptr<PyContext> context;
  std::optional<TransformFeedbackKernel> kernel;
  VariableTable table;
  bool timing = false;

  py::object run(const py::dict& values, const py::object& out, bool copy) {
    BoundCall call = bind_call(table, kernel->label(), values, parse_out(out), {}, copy);
    context->use();
    {
      py::gil_scoped_release unlocked;
      kernel->run(call.args);
    }
    return call.finish();
  }
};

std::unique_ptr<PyTransformFeedbackKernel> make_kernel(std::shared_ptr<PyContext> context,
                                                       const std::string& source,
                                                       const py::object& defines,
                                                       const std::string& label) {
  auto k = std::make_unique<PyTransformFeedbackKernel>();
  k->context = std::move(context);
  const Defines d = defines_from(defines);
  Context& c = k->context->use();
  {
    py::gil_scoped_release unlocked;
    k->kernel.emplace(c, source, d, label);
  }
  k->table = VariableTable(k->kernel->variables(), {});
  return k;
}

}  // namespace

void bind_transform_feedback_kernel(py::module_& m) {
  py::class_<PyTransformFeedbackKernel>(
      m, "TransformFeedbackKernel",
      R"(A vertex shader run once per element; every `out` is captured (the gpgpu.js method).

    k = gpgpu.TransformFeedbackKernel(ctx, """
        in float A; in float B; out float C; out float D;
        void main() { C = A + B; D = A * B; }""")
    k.run(A=a, B=b, C=c, D=d)          # c and d (writable float32) are filled
    c, d = k.run(A=a, B=b, out=["C", "D"])

Integer outputs must be declared `flat out`. The element count comes from the outputs (or,
for outputs gpgpu allocates, from the inputs).)")
      .def(py::init(&make_kernel), py::arg("context"), py::arg("source"),
           py::arg("defines") = py::none(), py::arg("label") = "transform-feedback kernel")
      .def(
          "run",
          [](PyTransformFeedbackKernel& k, py::object out, bool copy, py::object args,
             py::kwargs kwargs) { return k.run(merge_values(args, kwargs), out, copy); },
          py::kw_only(), py::arg("out") = py::none(), py::arg("copy") = false,
          py::arg("args") = py::none(),
          "Runs the shader once per element over the keyword arguments (see ComputeKernel.run "
          "for out=, copy= and args=).")
      .def_property_readonly(
          "variables",
          [](const PyTransformFeedbackKernel& k) { return variable_list(k.table.all()); },
          "The kernel's variables as the driver reports them (KernelVariable): what run() binds.")
      .def_property_readonly(
          "label", [](const PyTransformFeedbackKernel& k) { return k.kernel->label(); },
          "The name given at construction (it names the kernel in errors).")
      .def_property_readonly(
          "captures_separately",
          [](const PyTransformFeedbackKernel& k) { return k.kernel->captures_separately(); },
          "True when the outputs are captured GL_SEPARATE_ATTRIBS, False when interleaved.")
      .def_property(
          "timing", [](const PyTransformFeedbackKernel& k) { return k.timing; },
          [](PyTransformFeedbackKernel& k, bool on) {
            k.timing = on;
            k.kernel->set_timing(on);
          },
          "Measure each run's draw with GPU timer queries (last_gpu_ns).")
      .def_property_readonly(
          "last_gpu_ns", [](const PyTransformFeedbackKernel& k) { return k.kernel->last_gpu_ns(); },
          "GPU nanoseconds of the last run's draw when timing is on and supported, else -1.")
      .def("__repr__", [](const PyTransformFeedbackKernel& k) {
        return "<gpgpu.TransformFeedbackKernel '" + k.kernel->label() + "'>";
      });
}

}  // namespace gpgpu::python
