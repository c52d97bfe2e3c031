// gpgpu.earth.Model's NetCDF methods in a build without libnetcdf: present, and refused by name.
#include <array>
#include <string>
#include <utility>

#include "gpgpu/error.hpp"
#include "py_earth.hpp"
#include "py_earth_netcdf_docs.hpp"

namespace gpgpu::python {

namespace {

[[noreturn]] void unavailable() {
  throw UnsupportedError(
      "gpgpu.earth: this gpgpu was built without libnetcdf, so NetCDF files (to_netcdf, "
      "netcdf_writer, load_netcdf, to_xarray) are unavailable (Debian: apt-get install "
      "libnetcdf-dev, then rebuild)");
}

}  // namespace

void bind_earth_netcdf(py::module_& m, py::class_<PyEarthModel>& model) {
  m.attr("netcdf_available") = false;
  // Their docstrings as with libnetcdf, and why they refuse (static: pybind11 keeps pointers).
  static const std::array<std::pair<const char*, std::string>, 3> methods{{
      {"to_netcdf", std::string(netcdf_docs::to_netcdf) + netcdf_docs::unavailable_note},
      {"netcdf_writer", std::string(netcdf_docs::netcdf_writer) + netcdf_docs::unavailable_note},
      {"load_netcdf", std::string(netcdf_docs::load_netcdf) + netcdf_docs::unavailable_note},
  }};
  for (const auto& [name, doc] : methods) {
    model.def(
        name, [](PyEarthModel&, const py::args&, const py::kwargs&) { unavailable(); },
        doc.c_str());
  }
  model.def("_netcdf_contents", [](PyEarthModel&) { unavailable(); });
}

}  // namespace gpgpu::python
