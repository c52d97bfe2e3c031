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

struct PyTransformFeedbackKernel : PyKernelState<TransformFeedbackKernel> {
  py::object run(const py::dict& values, const py::object& out, bool copy) {
    BoundCall call = bind_call(table, owned->label(), values, parse_out(out), {}, copy);
    context->use();
    {
      py::gil_scoped_release unlocked;
      owned->run(call.args);
    }
    return call.finish();
  }
};

std::unique_ptr<PyTransformFeedbackKernel> make_transform_feedback_kernel(
    std::shared_ptr<PyContext> context, const std::string& source, const py::object& defines,
    const std::string& label) {
  return make_py_kernel<PyTransformFeedbackKernel>(std::move(context), source, defines, label);
}

}  // namespace

void bind_transform_feedback_kernel(py::module_& m) {
  py::class_<PyTransformFeedbackKernel> cls(
      m, "TransformFeedbackKernel",
      R"(A vertex shader run once per element; every `out` is captured (the gpgpu.js method).

    k = gpgpu.TransformFeedbackKernel(ctx, """
        in float A; in float B; out float C; out float D;
        void main() { C = A + B; D = A * B; }""")
    k.run(A=a, B=b, C=c, D=d)          # c and d (writable float32) are filled
    c, d = k.run(A=a, B=b, out=["C", "D"])

Integer outputs must be declared `flat out`. The element count comes from the outputs (or,
for outputs gpgpu allocates, from the inputs).)");
  cls.def(py::init(&make_transform_feedback_kernel), py::arg("context"), py::arg("source"),
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
          "captures_separately",
          [](const PyTransformFeedbackKernel& k) { return k.owned->captures_separately(); },
          "True when the outputs are captured GL_SEPARATE_ATTRIBS, False when interleaved.")
      .def("__repr__", [](const PyTransformFeedbackKernel& k) {
        return "<gpgpu.TransformFeedbackKernel '" + k.owned->label() + "'>";
      });
  def_kernel_properties(cls, "draw");
}

}  // namespace gpgpu::python
