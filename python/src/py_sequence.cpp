// gpgpu.Sequence: compute dispatches recorded once and replayed cheaply (gpgpu/sequence.hpp).
//
//   seq = gpgpu.Sequence(ctx, "step")
//   seq.record(scale, x=bx, y=by, factor=2.0)
//   seq.record(add, y=by, z=bz, offset=0)
//   offset = seq.uniform("offset")
//   for i in range(100):
//       offset.set(i)
//       seq.replay()
#include <memory>
#include <string>
#include <vector>

#include "gpgpu/error.hpp"
#include "gpgpu/sequence.hpp"
#include "py_bindings.hpp"
#include "py_compute_kernel.hpp"
#include "py_context.hpp"
#include "py_gpu_timing.hpp"
#include "py_kernel_args.hpp"

namespace gpgpu::python {

namespace {

struct PySequence : ContextOwned<Sequence> {
  PySequence(std::shared_ptr<PyContext> c, const std::string& label) : ContextOwned(std::move(c)) {
    owned.emplace(context->use(), label);
  }

  // The Buffers, Textures and kernels recorded, kept alive while the Sequence can replay.
  std::vector<py::object> keep_alive;
  bool timing = false;

  void record(const py::object& kernel_object, const py::dict& values, const py::object& items,
              const py::object& groups) {
    auto& k = kernel_object.cast<PyComputeKernel&>();
    if (k.context != context) {
      throw ArgumentError(owned->label() + ": the kernel belongs to another Context");
    }
    BoundCall call = k.bind(values, py::none(), items, /*copy=*/false);
    const CallSize s = k.size_of(items, groups);
    context->use();
    {
      py::gil_scoped_release unlocked;
      if (s.groups) {
        owned->record_groups(*k.owned, call.args, *s.groups);
      } else if (s.one_dimensional) {
        owned->record(*k.owned, call.args, s.items->x);
      } else if (s.items) {
        owned->record(*k.owned, call.args, *s.items);
      } else {
        owned->record(*k.owned, call.args);
      }
    }
    keep_alive.push_back(kernel_object);
    for (auto& o : call.keep_alive) keep_alive.push_back(std::move(o));
  }
};

// A uniform handle with the Python conversions of a run() argument.
struct PySequenceUniform {
  std::shared_ptr<PyContext> context;
  SequenceUniform handle;

  void set(const py::object& value) {
    const VariableTable table({handle.variable()}, {});
    py::dict values;
    values[py::str(handle.name())] = value;
    BoundCall call = bind_call(table, "uniform '" + handle.name() + "'", values, {}, {}, false);
    context->use();
    handle.set(call.args.at(0).value);
  }
};

}  // namespace

void bind_sequence(py::module_& m) {
  py::class_<PySequenceUniform>(m, "SequenceUniform",
                                R"(A recorded uniform that changes between replays.

    offset = seq.uniform("offset")
    offset.set(3)      # checked like run() checks the uniform; used from the next replay)")
      .def("set", &PySequenceUniform::set, py::arg("value"),
           "Sets the value every covered dispatch uses from the next replay on.")
      .def_property_readonly(
          "name", [](const PySequenceUniform& u) { return u.handle.name(); },
          "The uniform's name in the kernels' source (what seq.uniform() was asked for).")
      .def_property_readonly(
          "glsl_type", [](const PySequenceUniform& u) { return u.handle.variable().glsl_type; },
          "The uniform's GLSL type as the kernel declares it (\"float\", \"uint\", \"vec4\", "
          "\"mat4\"): what set() accepts.")
      .def_property_readonly(
          "dispatches", [](const PySequenceUniform& u) { return u.handle.dispatches(); },
          "How many recorded dispatches set() changes.");

  py::class_<PySequence> sequence(
      m, "Sequence",
      R"(Compute dispatches recorded once (every check made then) and replayed
with only the GL calls that change, and memory barriers only where a dispatch depends on an
earlier one. Bind Buffers, Textures and values: NumPy arrays would have to travel at every
replay, so they are refused (put them in a gpgpu.Buffer).

    seq = gpgpu.Sequence(ctx, "step")
    seq.record(scale, x=bx, y=by, factor=2.0)       # as scale.run(...) takes them
    seq.record(add, y=by, z=bz, offset=0)
    offset = seq.uniform("offset")
    for i in range(100):
        offset.set(i)
        seq.replay()

seq.capture(f) records every ComputeKernel run that f makes instead of running it.)");
  def_gpu_timing(sequence, "replay");
  sequence
      .def(py::init([](std::shared_ptr<PyContext> c, const std::string& label) {
             return std::make_unique<PySequence>(std::move(c), label);
           }),
           py::arg("context"), py::arg("label") = "sequence")
      .def(
          "record",
          [](PySequence& s, py::object kernel, py::object items, py::object groups, py::object args,
             py::kwargs kwargs) { s.record(kernel, merge_values(args, kwargs), items, groups); },
          py::arg("kernel"), py::kw_only(), py::arg("items") = py::none(),
          py::arg("groups") = py::none(), py::arg("args") = py::none(),
          R"(Appends the dispatch kernel.run(...) would make with these arguments (items=,
groups= and the values as run() takes them); raises what that run would raise.)")
      .def(
          "capture",
          [](PySequence& s, const py::function& body) {
            s.context->use();
            s.owned->capture([&] { body(); });
          },
          py::arg("body"),
          "Records every ComputeKernel run body() makes on this Context (they do not run); "
          "nothing is recorded when body raises.")
      .def(
          "replay",
          [](PySequence& s) {
            s.context->use();
            py::gil_scoped_release unlocked;
            s.owned->replay();
          },
          "Issues the recorded dispatches. Raises ArgumentError when a recorded Buffer or "
          "Texture was released or replaced since.")
      .def(
          "uniform",
          [](PySequence& s, const std::string& name, py::object first, py::object end) {
            PySequenceUniform u{s.context, {}};
            if (first.is_none() && end.is_none()) {
              u.handle = s.owned->uniform(name);
            } else {
              const std::size_t f = first.is_none() ? 0 : first.cast<std::size_t>();
              const std::size_t e = end.is_none() ? s.owned->size() : end.cast<std::size_t>();
              u.handle = s.owned->uniform(name, f, e);
            }
            return u;
          },
          py::arg("name"), py::arg("first") = py::none(), py::arg("end") = py::none(),
          "A handle on uniform `name` of every recorded dispatch that sets it (or of those in "
          "[first, end)).")
      .def(
          "dispatches_with",
          [](const PySequence& s, const std::string& name) {
            return s.owned->dispatches_with(name);
          },
          "The indices (in recording order) of the recorded dispatches that set the named "
          "uniform: where to look for the [first, end) of uniform(name, first, end).")
      .def(
          "clear",
          [](PySequence& s) {
            s.owned->clear();
            s.keep_alive.clear();
          },
          "Forgets every recorded dispatch.")
      .def("__len__", [](const PySequence& s) { return s.owned->size(); })
      .def_property_readonly(
          "barriers",
          [](const PySequence& s) {
            py::list list;
            for (const auto& b : s.owned->barriers()) list.append(py::make_tuple(b.before, b.bits));
            return list;
          },
          "(before dispatch, GL barrier bits) of every barrier a replay issues.")
      .def(
          "describe", [](const PySequence& s) { return s.owned->describe(); },
          "A text of one line per dispatch (index, kernel label, work groups) and per barrier a "
          "replay issues (its bits), in replay order.")
      .def_property_readonly(
          "replayable", [](const PySequence& s) { return s.owned->replayable(); },
          "True when every recorded Buffer and Texture is still there, so replay() would not "
          "raise; False after one was released or replaced (record again).")
      .def_property_readonly(
          "label", [](const PySequence& s) { return s.owned->label(); },
          "The name given at construction (it names the sequence in errors, describe() and "
          "profiles).")
      .def("__repr__", [](const PySequence& s) {
        return "<gpgpu.Sequence '" + s.owned->label() + "' of " + std::to_string(s.owned->size()) +
               " dispatches>";
      });
}

}  // namespace gpgpu::python
