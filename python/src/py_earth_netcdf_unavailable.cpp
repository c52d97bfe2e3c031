// gpgpu.earth.Model's NetCDF methods in a build without libnetcdf: present, and refused by name.
#include <string>
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
  const auto refused = [](PyEarthModel&, const py::args&, const py::kwargs&) { unavailable(); };
  // Static: the texts outlive the definitions, whatever pybind11 keeps of the pointers.
  static const std::string to_netcdf =
      std::string(netcdf_docs::to_netcdf) + netcdf_docs::unavailable_note;
  static const std::string writer =
      std::string(netcdf_docs::netcdf_writer) + netcdf_docs::unavailable_note;
  static const std::string load =
      std::string(netcdf_docs::load_netcdf) + netcdf_docs::unavailable_note;
  model.def("to_netcdf", refused, to_netcdf.c_str());
  model.def("netcdf_writer", refused, writer.c_str());
  model.def("load_netcdf", refused, load.c_str());
  model.def("_netcdf_contents", [](PyEarthModel&) { unavailable(); });
}

}  // namespace gpgpu::python
