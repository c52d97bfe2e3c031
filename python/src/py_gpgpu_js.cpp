// gpgpu.js.GPGPU: the gpgpu.js API over transform-feedback kernels, so code from its samples
// reads almost the same in Python:
//
//   gpgpu.js                                       Python
//   var gpgpu = CreateGPGPU();                     g = gpgpu.js.GPGPU(ctx)
//   gpgpu.compute({id: "AddVec",                   g.compute(id="AddVec",
//     vertexShader: vs, args: {A: A, C: C}});          vertex_shader=vs, args={"A": A, "C": C})
//   gpgpu.makeTextureInfo("float", [2, 8], A)      g.make_texture_info("float", (2, 8), A)
//
// The C++ gpgpu::js::GPGPU does the work; this binding converts the args by the kernel's
// variables, read once per id.
#include <map>
#include <memory>
#include <string>

#include "gpgpu/error.hpp"
#include "gpgpu/gpgpu_js.hpp"
#include "gpgpu/transform_feedback_kernel.hpp"
#include "py_arrays.hpp"
#include "py_bindings.hpp"
#include "py_context.hpp"
#include "py_kernel_args.hpp"
#include "py_texture.hpp"

namespace gpgpu::python {

namespace {

class PyGPGPU {
 public:
  explicit PyGPGPU(std::shared_ptr<PyContext> context)
      : context_(std::move(context)), gpgpu_(context_->use()) {}
  PyGPGPU(const PyGPGPU&) = delete;
  PyGPGPU& operator=(const PyGPGPU&) = delete;
  ~PyGPGPU() { context_->dispose(std::move(gpgpu_)); }

  py::object compute(const py::object& param, const py::object& id, const py::object& vertex_shader,
                     const py::object& args, const py::object& out, bool copy);
  bool clear(const std::string& id) {
    tables_.erase(id);
    return gpgpu_.clear(id);
  }
  PyTexture make_texture_info(const std::string& type, const py::object& shape,
                              const py::array& data, bool copy) const;
  std::size_t kernel_count() const { return gpgpu_.kernel_count(); }
  const std::shared_ptr<PyContext>& context() const { return context_; }

 private:
  const VariableTable& table_for(const std::string& id, const std::string& source);

  std::shared_ptr<PyContext> context_;
  js::GPGPU gpgpu_;
  std::map<std::string, VariableTable> tables_;
};

const VariableTable& PyGPGPU::table_for(const std::string& id, const std::string& source) {
  auto it = tables_.find(id);
  if (it != tables_.end()) return it->second;
  std::vector<KernelVariable> variables;
  Context& c = context_->use();
  {
    // Compiled into the Context's cache here; compute() below finds it there.
    py::gil_scoped_release unlocked;
    variables = TransformFeedbackKernel(c, source, {}, id).variables();
  }
  return tables_.emplace(id, VariableTable(std::move(variables), {})).first->second;
}

// compute(param) with a gpgpu.js-style dict ({"id", "vertexShader", "args"}), or compute(id=,
// vertex_shader=, args=).
py::object PyGPGPU::compute(const py::object& param, const py::object& id_arg,
                            const py::object& shader_arg, const py::object& args_arg,
                            const py::object& out, bool copy) {
  py::object id = id_arg, shader = shader_arg, args = args_arg;
  if (!param.is_none()) {
    auto p = py::dict(param);
    if (p.contains("id")) id = p["id"];
    if (p.contains("vertexShader")) shader = p["vertexShader"];
    if (p.contains("vertex_shader")) shader = p["vertex_shader"];
    if (p.contains("args")) args = p["args"];
  }
  if (id.is_none() || shader.is_none()) {
    throw ArgumentError("gpgpu.compute: the parameter needs an id and a vertex_shader");
  }
  js::ComputeParam cp;
  cp.id = id.cast<std::string>();
  cp.vertex_shader = shader.cast<std::string>();
  const VariableTable& table = table_for(cp.id, cp.vertex_shader);
  const py::dict values = args.is_none() ? py::dict() : py::dict(args);
  BoundCall call = bind_call(table, cp.id, values, parse_out(out), {}, copy);
  cp.args = std::move(call.args);
  context_->use();
  {
    py::gil_scoped_release unlocked;
    gpgpu_.compute(cp);
  }
  return call.finish();
}

PyTexture PyGPGPU::make_texture_info(const std::string& type, const py::object& shape,
                                     const py::array& data, bool copy) const {
  const TexelType texel = texel_type_from_name(type);
  const auto s = shape.cast<std::vector<std::size_t>>();
  const py::array values = checked_array(data, element_type(texel), copy, "make_texture_info");
  PyTexture t;
  context_->use();
  {
    const void* p = values.data();
    const auto n = static_cast<std::size_t>(values.size());
    py::gil_scoped_release unlocked;
    switch (element_type(texel)) {
      case ElementType::Float32:
        t.texture = gpgpu_.make_texture_info(
            type, s, std::span<const float>(static_cast<const float*>(p), n));
        break;
      case ElementType::Int32:
        t.texture = gpgpu_.make_texture_info(
            type, s, std::span<const std::int32_t>(static_cast<const std::int32_t*>(p), n));
        break;
      case ElementType::Uint32:
        t.texture = gpgpu_.make_texture_info(
            type, s, std::span<const std::uint32_t>(static_cast<const std::uint32_t*>(p), n));
        break;
    }
  }
  t.context = context_;
  return t;
}

}  // namespace

void bind_gpgpu_js(py::module_& m) {
  auto js = m.def_submodule("js", "The gpgpu.js API (transform-feedback kernels by id).");
  py::class_<PyGPGPU>(js, "GPGPU", R"(The gpgpu.js object: compute(), clear(), make_texture_info().

    g = gpgpu.js.GPGPU(ctx)
    g.compute(id="AddMulVec", vertex_shader="""
        in float A; in float B; out float C; out float D;
        void main() { C = A + B; D = A * B; }""", args={"A": a, "B": b, "C": c, "D": d})

Each `out` needs a writable array (filled in place) or a Buffer, or is returned when named in
out=. Integer outputs are declared `flat out`. An id is compiled on first use.)")
      .def(py::init<std::shared_ptr<PyContext>>(), py::arg("context"))
      .def("compute", &PyGPGPU::compute, py::arg("param") = py::none(), py::kw_only(),
           py::arg("id") = py::none(), py::arg("vertex_shader") = py::none(),
           py::arg("args") = py::none(), py::arg("out") = py::none(), py::arg("copy") = false,
           "Runs vertex_shader once per element over args (a dict of name: value).")
      .def("clear", &PyGPGPU::clear, py::arg("id"),
           "Forgets the kernel of `id`; False if there was none.")
      .def("make_texture_info", &PyGPGPU::make_texture_info, py::arg("type"), py::arg("shape"),
           py::arg("data"), py::kw_only(), py::arg("copy") = false,
           "A Texture of `type` (\"float\", \"vec4\", \"int\", \"uint\", ...) and shape (rows, "
           "cols) or (depth, rows, cols) from row-major data.")
      .def_property_readonly("kernel_count", &PyGPGPU::kernel_count,
                             "How many compiled kernels it keeps (ids not cleared).")
      .def_property_readonly("context", &PyGPGPU::context, "The Context it runs on.");
}

}  // namespace gpgpu::python
