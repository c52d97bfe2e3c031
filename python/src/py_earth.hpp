// gpgpu.earth: the Python face of gpgpu::earth, shared by the py_earth*.cpp files. A
// PyEarthModel owns a Model made on a PyContext and the Grid it runs on (both kept alive by
// it), and disposes of the Model on the Context's thread.
#pragma once

#include <memory>
#include <optional>
#include <utility>

#include "gpgpu/earth.hpp"
#include "py_arrays.hpp"
#include "py_bindings.hpp"
#include "py_context.hpp"

namespace gpgpu::python {

namespace ge = gpgpu::earth;

struct PyEarthModel {
  PyEarthModel() = default;
  PyEarthModel(const PyEarthModel&) = delete;
  PyEarthModel& operator=(const PyEarthModel&) = delete;
  ~PyEarthModel() {
    // The grid goes with the model: the model reads it until it is gone.
    if (context && model) context->dispose(std::make_pair(std::move(*model), grid));
  }
  ge::Model& use() {
    context->use();
    return *model;
  }
  // Simulated seconds since the case's start: the model's own clock plus where it started
  // (a state read from a NetCDF file).
  double time() const { return time_offset + model->time(); }

  std::shared_ptr<PyContext> context;
  std::shared_ptr<const ge::Grid> grid;
  std::optional<ge::Model> model;
  double time_offset = 0;
  ge::GlobalSums start;  // float64 sums of the starting fields, for drift()
};

// to_netcdf, netcdf_writer, load_netcdf and the contents to_xarray builds from (through
// gpgpu::earth_netcdf in py_earth_netcdf.cpp; refused by name in builds without libnetcdf).
void bind_earth_netcdf(py::module_& m, py::class_<PyEarthModel>& model);

}  // namespace gpgpu::python
