// gpgpu.earth.Model's NetCDF methods in a build without libnetcdf: present, and refused by name.
#include "gpgpu/error.hpp"
#include "py_earth.hpp"

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
  model.def("to_netcdf", [](PyEarthModel&, const py::args&, const py::kwargs&) { unavailable(); });
  model.def("netcdf_writer",
            [](PyEarthModel&, const py::args&, const py::kwargs&) { unavailable(); });
  model.def("load_netcdf",
            [](PyEarthModel&, const py::args&, const py::kwargs&) { unavailable(); });
  model.def("_netcdf_contents", [](PyEarthModel&) { unavailable(); });
}

}  // namespace gpgpu::python
