// gpgpu.earth.Model's NetCDF methods through gpgpu::earth_netcdf: to_netcdf, netcdf_writer (a
// file of many records, a context manager), load_netcdf, and the contents to_xarray builds from.
#include <optional>
#include <string>

#include <fmt/format.h>

#include "gpgpu/earth/netcdf.hpp"
#include "gpgpu/error.hpp"
#include "py_earth.hpp"
#include "py_earth_netcdf_docs.hpp"

namespace gpgpu::python {

namespace {

// One record of the model's current state.
struct State {
  double time = 0;
  ge::Fields fields;
  std::vector<double> vorticity;
};

State state_of(PyEarthModel& p) {
  auto& model = p.use();
  State s;
  py::gil_scoped_release unlocked;
  s.time = model.time();
  s.fields = model.fields();
  s.vorticity = model.vorticity();
  return s;
}

ge::NetcdfOptions options_for(const PyEarthModel& p, int deflate_level,
                              const std::string& history) {
  ge::NetcdfOptions o;
  o.deflate_level = deflate_level;
  o.time_offset = p.time_offset;
  o.history = history;
  return o;
}

struct PyNetcdfWriter {
  py::object owner;  // the gpgpu.earth.Model, kept alive while the writer reads its grid
  PyEarthModel* model = nullptr;
  std::optional<ge::NetcdfWriter> writer;

  ge::NetcdfWriter& use() {
    if (!writer) throw Error("gpgpu.earth NetCDF writer: it was abandoned after an error");
    return *writer;
  }
  void write() {
    auto& w = use();
    const State s = state_of(*model);
    py::gil_scoped_release unlocked;
    w.write(s.time, s.fields, s.vorticity);
  }
  void close() {
    auto& w = use();
    py::gil_scoped_release unlocked;
    w.close();
  }
};

void to_netcdf(PyEarthModel& p, const std::string& path, int deflate_level) {
  const State s = state_of(p);
  const auto options = options_for(p, deflate_level, "gpgpu.earth.Model.to_netcdf");
  const auto& setup = p.use().setup();
  py::gil_scoped_release unlocked;
  ge::NetcdfWriter out(path, *p.grid, setup, options);
  out.write(s.time, s.fields, s.vorticity);
  out.close();
}

std::unique_ptr<PyNetcdfWriter> netcdf_writer(py::object self, const std::string& path,
                                              int deflate_level) {
  auto& p = self.cast<PyEarthModel&>();
  auto w = std::make_unique<PyNetcdfWriter>();
  w->owner = self;
  w->model = &p;
  const auto options = options_for(p, deflate_level, "gpgpu.earth.Model.netcdf_writer");
  const auto& setup = p.use().setup();
  w->writer.emplace(path, *p.grid, setup, options);
  return w;
}

py::dict load_netcdf(PyEarthModel& p, const std::string& path, long record) {
  auto& model = p.use();
  ge::NetcdfState s;
  {
    py::gil_scoped_release unlocked;
    s = ge::read_netcdf_state(path, *p.grid, model.setup(), record);
    model.set_fields(s.fields);
  }
  p.time_offset = s.time - model.time();
  py::dict d;
  d["time"] = s.time, d["record"] = s.record, d["records"] = s.records;
  return d;
}

// A new array of `shape` holding `values` (C order).
template <class T>
py::array shaped(const std::vector<T>& values, const std::vector<std::size_t>& shape) {
  py::array a = numpy().attr("empty")(py::cast(shape), py::dtype::of<T>());
  std::copy(values.begin(), values.end(), static_cast<T*>(a.mutable_data()));
  return a;
}

py::object attribute_value(const ge::NetcdfAttribute& a) {
  return std::visit([](const auto& v) { return py::cast(v); }, a);
}

// {"variables": [(name, dims, values, attrs)], "attributes": {...}}: what a one-record file of
// the current state holds, for to_xarray.
py::dict contents(PyEarthModel& p) {
  const State s = state_of(p);
  const auto c = ge::netcdf_contents(*p.grid, p.use().setup(), s.time, s.fields, s.vorticity,
                                     options_for(p, 4, "gpgpu.earth.Model.to_xarray"));
  py::list variables;
  for (const auto& v : c.variables) {
    py::dict attrs;
    for (const auto& [k, a] : v.attributes) attrs[py::str(k)] = attribute_value(a);
    const py::array values =
        std::visit([&](const auto& vec) { return shaped(vec, v.shape); }, v.values);
    variables.append(py::make_tuple(v.name, py::cast(v.dimensions), values, attrs));
  }
  py::dict attributes;
  for (const auto& [k, a] : c.attributes) attributes[py::str(k)] = attribute_value(a);
  py::dict d;
  d["variables"] = variables;
  d["attributes"] = attributes;
  return d;
}

}  // namespace

void bind_earth_netcdf(py::module_& m, py::class_<PyEarthModel>& model) {
  m.attr("netcdf_available") = true;
  model.def("to_netcdf", &to_netcdf, py::arg("path"), py::kw_only(), py::arg("deflate_level") = 4,
            netcdf_docs::to_netcdf);
  model.def("netcdf_writer", &netcdf_writer, py::arg("path"), py::kw_only(),
            py::arg("deflate_level") = 4, netcdf_docs::netcdf_writer);
  model.def("load_netcdf", &load_netcdf, py::arg("path"), py::kw_only(), py::arg("record") = -1,
            netcdf_docs::load_netcdf);
  model.def("_netcdf_contents", &contents,
            "What a one-record NetCDF file of the current state holds (for to_xarray).");
  py::class_<PyNetcdfWriter>(m, "NetcdfWriter",
                             "A NetCDF file being written: see gpgpu.earth.Model.netcdf_writer.")
      .def("write", &PyNetcdfWriter::write, "Appends the model's current state as a record.")
      .def("close", &PyNetcdfWriter::close, "Finishes the file and renames it into place.")
      .def_property_readonly(
          "records", [](PyNetcdfWriter& w) { return w.use().records(); }, "Records written so far.")
      .def_property_readonly(
          "path", [](PyNetcdfWriter& w) { return w.use().path().string(); },
          "The file close() renames the temporary to.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__",
           [](PyNetcdfWriter& w, const py::object& type, const py::object&, const py::object&) {
             if (type.is_none()) {
               w.close();
             } else {
               w.writer.reset();  // abandoned: the temporary is removed, no file appears
             }
             return false;
           });
}

}  // namespace gpgpu::python
