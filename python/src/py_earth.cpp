// The submodule gpgpu.earth (python/gpgpu/earth.py re-exports it and adds to_xarray): the
// geodesic grid as NumPy arrays, and the shallow-water model run from Python. Grid arrays are
// read-only views of the grid's own memory where its layout allows; fields are new arrays. The
// GIL is released while the grid is built and while the model steps.
#include <cmath>
#include <numbers>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "py_earth.hpp"

namespace gpgpu::python {

namespace {

constexpr double degrees = 180.0 / std::numbers::pi;

using GridPtr = std::shared_ptr<ge::Grid>;

// A read-only array over memory `owner` keeps alive.
template <class T>
py::array view(const T* data, std::vector<py::ssize_t> shape, const py::object& owner) {
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t step = sizeof(T);
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = step;
    step *= shape[i];
  }
  py::array a(py::dtype::of<T>(), shape, strides, data, owner);
  a.attr("setflags")(py::arg("write") = false);  // the grid is shared: nobody writes it
  return a;
}

py::ssize_t count(std::size_t n) {
  return static_cast<py::ssize_t>(n);
}

py::array doubles(const std::vector<double>& v) {
  py::array a = numpy().attr("empty")(count(v.size()), "float64");
  std::copy(v.begin(), v.end(), static_cast<double*>(a.mutable_data()));
  return a;
}

py::array vectors(const std::vector<ge::Vec3>& v) {
  py::array a = numpy().attr("empty")(py::make_tuple(count(v.size()), 3), "float64");
  auto* p = static_cast<double*>(a.mutable_data());
  for (const auto& x : v) *p++ = x.x, *p++ = x.y, *p++ = x.z;
  return a;
}

template <class F>
py::array per_point(const std::vector<ge::Vec3>& points, F&& f) {
  std::vector<double> v(points.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = degrees * f(points[i]);
  return doubles(v);
}

ge::GridDevice grid_device(const std::string& name) {
  if (name == "auto") return ge::GridDevice::Auto;
  if (name == "cpu") return ge::GridDevice::Cpu;
  if (name == "gpu") return ge::GridDevice::Gpu;
  throw ArgumentError("earth.Grid: device must be 'auto', 'cpu' or 'gpu'; got '" + name + "'");
}

GridPtr make_grid(int level, const std::string& kind, bool recentre, const std::string& device,
                  const py::object& ctx) {
  ge::GridOptions o;
  o.level = level;
  if (kind != "spring" && kind != "bisection") {
    throw ArgumentError("earth.Grid: kind must be 'spring' or 'bisection'; got '" + kind + "'");
  }
  o.optimization =
      kind == "spring" ? ge::GridOptimization::Spring : ge::GridOptimization::Bisection;
  o.recentre = recentre;
  o.device = grid_device(device);
  ge::cell_count_at(level);  // ArgumentError outside 0..11, before any work
  // The spring dynamics may run on the GPU: on this thread's Context, never a second one.
  const auto context = o.device == ge::GridDevice::Cpu ? nullptr : context_or_default(ctx);
  const Context* gpu = context ? &context->use() : nullptr;
  py::gil_scoped_release unlocked;
  return std::make_shared<ge::Grid>(ge::cached_grid(o, gpu).grid);
}

py::dict statistics_dict(const ge::Grid& g) {
  const auto s = ge::statistics(g);
  py::dict d;
  d["level"] = s.level, d["cells"] = s.cells, d["triangles"] = s.triangles, d["edges"] = s.edges;
  d["pentagons"] = s.pentagons, d["hexagons"] = s.hexagons;
  d["min_spacing"] = s.min_spacing, d["mean_spacing"] = s.mean_spacing,
  d["max_spacing"] = s.max_spacing;
  d["min_area"] = s.min_area, d["max_area"] = s.max_area, d["area_ratio"] = s.area_ratio;
  d["area_sum_error"] = s.area_sum_error;
  d["neighbours_symmetric"] = s.neighbours_symmetric;
  d["neighbours_counter_clockwise"] = s.neighbours_counter_clockwise;
  d["text"] = s.to_string();
  return d;
}

void bind_grid(py::module_& m) {
  py::class_<ge::Grid, GridPtr>(
      m, "Grid",
      R"(The geodesic icosahedral grid: 10 * 4**level + 2 cells, twelve of them pentagons.

    grid = gpgpu.earth.Grid(5)                  # 10242 cells; from the disk cache or built
    grid.lat, grid.lon                          # cell centres, degrees (float64 (n,))
    grid.neighbours                             # (n, 6) int32, counter-clockwise, -1 past degree
    grid.face_vertices                          # (n, 6) corners of each cell, -1 past degree
    grid.vertex_lat, grid.vertex_lon            # the corners (mesh nodes), degrees
    grid.areas                                  # (n,) control-volume areas on the unit sphere

kind: "spring" (Tomita's spring dynamics, the default) or "bisection"; recentre: move points to
their control volumes' centroids; device: where the springs run ("auto", "cpu", "gpu"; the GPU
is ctx's, default gpgpu.default_context()). Arrays
that mirror the grid's memory (centres, vertices, degree, neighbours, triangles, areas) are
read-only views without a copy.)")
      .def(py::init(&make_grid), py::arg("level") = 5, py::kw_only(), py::arg("kind") = "spring",
           py::arg("recentre") = true, py::arg("device") = "auto", py::arg("ctx") = py::none())
      .def_readonly("level", &ge::Grid::level, "The refinement level: 10 * 4**level + 2 cells.")
      .def_property_readonly("cell_count", &ge::Grid::cell_count,
                             "Cells (control volumes): 10 * 4**level + 2.")
      .def_property_readonly(
          "vertex_count", &ge::Grid::triangle_count,
          "Corners of the control volumes: one per dual triangle, 20 * 4**level.")
      .def_property_readonly("edge_count", &ge::Grid::edge_count,
                             "Distinct cell-cell edges: 30 * 4**level.")
      .def_property_readonly(
          "centres",
          [](py::object self) {
            const auto& g = self.cast<const ge::Grid&>();
            return view(&g.centres[0].x, {count(g.cell_count()), 3}, self);
          },
          "Cell centres as unit vectors (n, 3) (x towards (0 N, 0 E), z to the north pole).")
      .def_property_readonly(
          "vertices",
          [](py::object self) {
            const auto& g = self.cast<const ge::Grid&>();
            return view(&g.corners[0].x, {count(g.triangle_count()), 3}, self);
          },
          "The control volumes' corners (mesh nodes) as unit vectors (vertex_count, 3).")
      .def_property_readonly(
          "degree",
          [](py::object self) {
            const auto& g = self.cast<const ge::Grid&>();
            return view(g.degree.data(), {count(g.cell_count())}, self);
          },
          "Neighbours per cell, uint8 (n,) view: 5 (twelve pentagons) or 6.")
      .def_property_readonly(
          "neighbours",
          [](py::object self) {
            const auto& g = self.cast<const ge::Grid&>();
            return view(g.neighbours[0].data(), {count(g.cell_count()), 6}, self);
          },
          "Each cell's neighbours, int32 (n, 6) view, in the slots of face_vertices (neighbour "
          "k shares the edge from corner k-1 to corner k); -1 past the degree.")
      .def_property_readonly(
          "triangles",
          [](py::object self) {
            const auto& g = self.cast<const ge::Grid&>();
            return view(g.triangles[0].data(), {count(g.triangle_count()), 3}, self);
          },
          "The dual triangles (vertex_count, 3): three cells each, counter-clockwise; triangle t "
          "has corner (vertex) t.")
      .def_property_readonly(
          "areas",
          [](py::object self) {
            const auto& g = self.cast<const ge::Grid&>();
            return view(g.areas.data(), {count(g.cell_count())}, self);
          },
          "Control-volume areas on the unit sphere, float64 (n,) view (they "
          "sum to 4 pi; Model.cell_areas gives m^2).")
      .def_property_readonly(
          "face_vertices",
          [](const ge::Grid& g) {
            py::array a =
                numpy().attr("full")(py::make_tuple(count(g.cell_count()), 6), -1, "int32");
            auto* p = static_cast<std::int32_t*>(a.mutable_data());
            for (std::size_t i = 0; i < g.cell_count(); ++i) {
              for (int k = 0; k < g.degree[i]; ++k)
                p[6 * i + static_cast<std::size_t>(k)] = g.cell_triangles[i][k];
            }
            return a;
          },
          "Each cell's corners (vertex indices), counter-clockwise seen from outside; -1 past a "
          "pentagon's fifth. Neighbour k shares the edge from corner k-1 to corner k.")
      .def_property_readonly(
          "lat", [](const ge::Grid& g) { return per_point(g.centres, ge::latitude); },
          "Latitude of the cell centres, degrees north.")
      .def_property_readonly(
          "lon", [](const ge::Grid& g) { return per_point(g.centres, ge::longitude); },
          "Longitude of the cell centres, degrees east (-180..180).")
      .def_property_readonly(
          "vertex_lat", [](const ge::Grid& g) { return per_point(g.corners, ge::latitude); },
          "Latitude of the control volumes' corners (vertices), degrees north.")
      .def_property_readonly(
          "vertex_lon", [](const ge::Grid& g) { return per_point(g.corners, ge::longitude); },
          "Longitude of the control volumes' corners (vertices), degrees east (-180..180).")
      .def("statistics", &statistics_dict,
           "Spacing, areas and the consistency checks, as a dict ('text': the report).")
      .def("__repr__", [](const ge::Grid& g) {
        return fmt::format("<gpgpu.earth.Grid level {}, {} cells>", g.level, g.cell_count());
      });
}

std::unique_ptr<PyEarthModel> make_model(int case_number, const py::object& level, double alpha,
                                         const py::object& grid, const py::object& ctx,
                                         double courant, double correction, double diffusion_hours,
                                         double time_step) {
  auto p = std::make_unique<PyEarthModel>();
  p->context = context_or_default(ctx);
  if (grid.is_none()) {
    p->grid = make_grid(level.is_none() ? 5 : level.cast<int>(), "spring", true, "auto", ctx);
  } else {
    p->grid = grid.cast<GridPtr>();
    if (!level.is_none() && level.cast<int>() != p->grid->level) {
      throw ArgumentError(
          fmt::format("earth.Model: level {} was asked for, but the grid given is "
                      "level {}",
                      level.cast<int>(), p->grid->level));
    }
  }
  const auto setup = ge::make_case(case_number, alpha);
  ge::ModelOptions o;
  o.courant = courant, o.continuity_correction = correction;
  o.diffusion_time = diffusion_hours * 3600, o.time_step = time_step;
  Context& c = p->context->use();
  py::gil_scoped_release unlocked;
  p->model.emplace(c, *p->grid, setup, o);
  p->start = ge::host_sums(*p->grid, setup, p->model->fields());
  return p;
}

py::dict fields_dict(PyEarthModel& p) {
  auto& model = p.use();
  ge::Fields f;
  std::vector<double> zeta;
  {
    py::gil_scoped_release unlocked;
    f = model.fields();
    zeta = model.vorticity();
  }
  std::vector<double> u(f.height.size()), v(f.height.size());
  for (std::size_t i = 0; i < u.size(); ++i) {
    std::tie(u[i], v[i]) = ge::east_north(p.grid->centres[i], f.velocity[i]);
  }
  py::dict d;
  d["h"] = doubles(f.height);
  d["u"] = doubles(u);
  d["v"] = doubles(v);
  d["velocity"] = vectors(f.velocity);
  d["surface"] = doubles(f.surface);
  d["vorticity"] = doubles(zeta);
  d["time"] = p.time();
  return d;
}

ge::Fields download(PyEarthModel& p) {
  auto& model = p.use();
  py::gil_scoped_release unlocked;
  return model.fields();
}

// The eastward (0) or northward (1) velocity of every cell.
py::array east_or_north(PyEarthModel& p, int which) {
  const ge::Fields f = download(p);
  std::vector<double> out(f.velocity.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto en = ge::east_north(p.grid->centres[i], f.velocity[i]);
    out[i] = which == 0 ? en.first : en.second;
  }
  return doubles(out);
}

void advance(PyEarthModel& p, double days, double seconds, const py::object& callback) {
  auto& model = p.use();
  const double total = days * 86400.0 + seconds;
  if (!(std::isfinite(total) && total > 0)) {
    throw ArgumentError(fmt::format(
        "earth.Model.advance: give a positive time (days={}, seconds={})", days, seconds));
  }
  std::function<void(double)> progress = [&](double fraction) {
    py::gil_scoped_acquire locked;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (!callback.is_none()) callback(fraction);
  };
  py::gil_scoped_release unlocked;
  model.run(total, progress);
}

void set_fields(PyEarthModel& p, const py::array& h, const py::array& velocity) {
  auto& model = p.use();
  const std::size_t n = p.grid->cell_count();
  const py::array hh = numpy().attr("ascontiguousarray")(h, "float64");
  const py::array vv = numpy().attr("ascontiguousarray")(velocity, "float64");
  if (hh.ndim() != 1 || static_cast<std::size_t>(hh.shape(0)) != n || vv.ndim() != 2 ||
      static_cast<std::size_t>(vv.shape(0)) != n || vv.shape(1) != 3) {
    throw SizeMismatchError(
        fmt::format("earth.Model.set_fields: h must be ({},) and velocity ({}, 3); got {} and {}",
                    n, n, describe_value(h), describe_value(velocity)));
  }
  ge::Fields f = download(p);
  const auto* ph = static_cast<const double*>(hh.data());
  const auto* pv = static_cast<const double*>(vv.data());
  for (std::size_t i = 0; i < n; ++i) {
    f.height[i] = ph[i];
    f.velocity[i] = {pv[3 * i], pv[3 * i + 1], pv[3 * i + 2]};
  }
  model.set_fields(f);
}

py::dict sums_dict(const ge::GlobalSums& s) {
  py::dict d;
  d["mass"] = s.mass, d["energy"] = s.energy, d["potential_enstrophy"] = s.potential_enstrophy;
  d["circulation"] = s.circulation;
  return d;
}

py::dict diagnostics(PyEarthModel& p) {
  auto& model = p.use();
  ge::Fields f;
  ge::GlobalSums gpu;
  {
    py::gil_scoped_release unlocked;
    f = model.fields();
    gpu = model.sums();
  }
  const auto& setup = model.setup();
  const auto now = ge::host_sums(*p.grid, setup, f);
  const auto drift = ge::drift(p.start, now);
  py::dict d;
  d["time"] = p.time();
  d["days"] = p.time() / 86400.0;
  d["steps"] = model.steps_taken();
  d["time_step"] = model.time_step();
  d["sums"] = sums_dict(now);
  d["gpu_sums"] = sums_dict(gpu);
  py::dict dr;
  dr["mass"] = drift.mass, dr["energy"] = drift.energy;
  dr["potential_enstrophy"] = drift.potential_enstrophy, dr["circulation"] = drift.circulation;
  d["drift"] = dr;
  if (ge::has_analytic_solution(setup)) {
    const auto e =
        ge::height_errors(*p.grid, f.height, ge::analytic_height(*p.grid, setup, p.time()));
    py::dict errors;
    errors["l1"] = e.l1, errors["l2"] = e.l2, errors["linf"] = e.linf;
    d["errors"] = errors;
  }
  return d;
}

void bind_model(py::module_& m) {
  py::class_<PyEarthModel> c(
      m, "Model", R"(The shallow-water model on the GPU: a Williamson et al. (1992) test case.

    import gpgpu.earth as earth
    model = earth.Model(case=5, level=5)       # the mountain; cases 1, 2, 5, 6
    model.advance(days=1)                      # equal steps of at most the CFL step
    f = model.fields()                         # {'h', 'u', 'v', 'velocity', 'surface', 'vorticity', 'time'}
    model.h, model.u, model.v                  # float64 (n,): depth (m), east and north wind (m/s)
    model.diagnostics()                        # sums, drift, error norms (cases 1, 2)
    model.to_netcdf("case5.nc")                # UGRID + CF NetCDF (gpgpu.earth.netcdf_available)
    ds = model.to_xarray()                     # the same as an xarray.Dataset

level: the grid's level (default 5), or grid: a gpgpu.earth.Grid. alpha: the flow's tilt (cases 1, 2), radians.
courant, correction, diffusion_hours, time_step: the numerical options of `gpgpu earth`
(docs/earth.md). Fields are float32 on the device; h comes back as the model stores it (its mean
added in float64). The GIL is released while it steps; Ctrl-C stops advance() at its next check.)");
  c.def(py::init(&make_model), py::arg("case") = 2, py::arg("level") = py::none(), py::kw_only(),
        py::arg("alpha") = 0.0, py::arg("grid") = py::none(), py::arg("ctx") = py::none(),
        py::arg("courant") = 1.6, py::arg("correction") = 0.125, py::arg("diffusion_hours") = 0.0,
        py::arg("time_step") = 0.0)
      .def(
          "step",
          [](PyEarthModel& p, long long n) {
            if (n < 0) throw ArgumentError("earth.Model.step: the count must be >= 0");
            auto& model = p.use();
            py::gil_scoped_release unlocked;
            model.step(n);
          },
          py::arg("count") = 1, "Takes `count` steps of time_step seconds (queued; nothing waits).")
      .def("advance", &advance, py::kw_only(), py::arg("days") = 0.0, py::arg("seconds") = 0.0,
           py::arg("callback") = py::none(),
           R"(Advances days * 86400 + seconds in equal steps of at most max_time_step.

    model.advance(days=5)
    model.advance(seconds=3600, callback=lambda fraction: print(f"{fraction:.0%}"))

Checks the state as it goes: raises gpgpu.Error (InstabilityError) naming the step, field and
cell when the state blows up.)")
      .def(
          "check", [](PyEarthModel& p) { p.use().check(); },
          "Raises when a field holds a NaN or infinity or the depth left its physical range.")
      .def_property_readonly("time", &PyEarthModel::time,
                             "Simulated seconds since the case's start.")
      .def_property_readonly(
          "days", [](const PyEarthModel& p) { return p.time() / 86400.0; },
          "Simulated days since the case's start (time / 86400).")
      .def_property(
          "time_step", [](PyEarthModel& p) { return p.use().time_step(); },
          [](PyEarthModel& p, double s) { p.use().set_time_step(s); }, "Seconds a step() takes.")
      .def_property_readonly(
          "max_time_step", [](PyEarthModel& p) { return p.use().max_time_step(); },
          "The largest step (s) advance() takes: the CFL step, or the time_step= given.")
      .def_property_readonly(
          "steps_taken", [](PyEarthModel& p) { return p.use().steps_taken(); },
          "Steps taken since the start.")
      .def_property_readonly(
          "mean_depth", [](PyEarthModel& p) { return p.use().mean_depth(); },
          "The depth (m) the state is stored relative to.")
      .def("fields", &fields_dict,
           "Every field at once (one download): h (m), u, v (m/s, east and north), velocity "
           "(n, 3) geocentric (m/s), surface (m), vorticity (1/s); and time (s).")
      .def_property_readonly(
          "h", [](PyEarthModel& p) { return doubles(download(p).height); },
          "The fluid depth h (m) of every cell (the free surface is h + surface).")
      .def_property_readonly(
          "u", [](PyEarthModel& p) { return east_or_north(p, 0); },
          "Eastward velocity (m/s) of every cell.")
      .def_property_readonly(
          "v", [](PyEarthModel& p) { return east_or_north(p, 1); },
          "Northward velocity (m/s) of every cell.")
      .def_property_readonly(
          "velocity", [](PyEarthModel& p) { return vectors(download(p).velocity); },
          "The velocity as geocentric Cartesian vectors (n, 3), m/s.")
      .def_property_readonly(
          "surface", [](PyEarthModel& p) { return doubles(download(p).surface); },
          "The bottom topography h_s (m): case 5's mountain, else zeros.")
      .def_property_readonly(
          "vorticity",
          [](PyEarthModel& p) {
            auto& model = p.use();
            std::vector<double> zeta;
            {
              py::gil_scoped_release unlocked;
              zeta = model.vorticity();
            }
            return doubles(zeta);
          },
          "Relative vorticity (1/s) of every cell.")
      .def("set_fields", &set_fields, py::arg("h"), py::arg("velocity"),
           "Replaces h ((n,) m) and the velocity ((n, 3) geocentric m/s) of every cell.")
      .def(
          "analytic_h",
          [](PyEarthModel& p) {
            auto& model = p.use();
            return doubles(ge::analytic_height(*p.grid, model.setup(), p.time()));
          },
          "The exact depth at the current time (cases 1 and 2; ArgumentError for the others).")
      .def(
          "sums",
          [](PyEarthModel& p) {
            auto& model = p.use();
            ge::GlobalSums s;
            {
              py::gil_scoped_release unlocked;
              s = model.sums();
            }
            return sums_dict(s);
          },
          "Mass, energy, potential enstrophy and circulation from the GPU reduction.")
      .def("diagnostics", &diagnostics,
           "time, days, steps, time_step, sums (float64 from the fields), gpu_sums, drift since "
           "the start (relative; circulation absolute) and, for cases 1 and 2, errors (l1, l2, "
           "linf against the exact solution).")
      .def_property_readonly(
          "grid", [](const PyEarthModel& p) { return std::const_pointer_cast<ge::Grid>(p.grid); },
          "The gpgpu.earth.Grid the model runs on.")
      .def_property_readonly(
          "case", [](PyEarthModel& p) { return p.use().setup().number; },
          "The test case's number (Williamson et al. 1992): 1, 2, 5 or 6.")
      .def_property_readonly(
          "alpha", [](PyEarthModel& p) { return p.use().setup().alpha; },
          "The flow's tilt from the pole (cases 1 and 2), radians.")
      .def_property_readonly(
          "title", [](PyEarthModel& p) { return p.use().setup().title(); },
          "The case's name, as plots and NetCDF files title it.")
      .def_property_readonly(
          "case_days", [](PyEarthModel& p) { return p.use().setup().days; },
          "The length of the paper's run for this case, days.")
      .def_property_readonly(
          "radius", [](PyEarthModel& p) { return p.use().setup().planet.radius; },
          "The planet's radius, m.")
      .def_property_readonly(
          "cell_areas",
          [](PyEarthModel& p) {
            const double a = p.use().setup().planet.radius;
            std::vector<double> v(p.grid->areas);
            for (auto& x : v) x *= a * a;
            return doubles(v);
          },
          "Cell areas on the planet, m^2.")
      .def_property_readonly(
          "context", [](const PyEarthModel& p) { return p.context; },
          "The gpgpu.Context the model runs on (calls must come from its thread).")
      .def("__repr__", [](PyEarthModel& p) {
        return fmt::format("<gpgpu.earth.Model {}, level {}, day {:.3f}>", p.use().setup().title(),
                           p.grid->level, p.time() / 86400.0);
      });
  bind_earth_netcdf(m, c);
}

}  // namespace

void bind_earth(py::module_& m) {
  auto earth = m.def_submodule("earth", R"(The shallow-water model on a geodesic grid, from Python.

    import gpgpu.earth as earth
    model = earth.Model(case=2, level=4)
    model.advance(days=1)
    h = model.h                                  # float64 (n,), metres
    lat, lon = model.grid.lat, model.grid.lon    # cell centres, degrees
    print(model.diagnostics()["errors"])         # case 2 has an exact solution
    model.to_netcdf("case2.nc")                  # UGRID-1.0 + CF-1.8 (docs/earth-netcdf.md)
    ds = model.to_xarray()                       # the same as an xarray.Dataset

Contents: Grid, Model, NetcdfWriter, cell_count, netcdf_available. docs/python.md has the guide and
docs/earth-netcdf.md the NetCDF layout.)");
  bind_grid(earth);
  bind_model(earth);
  earth.def("cell_count", &ge::cell_count_at, py::arg("level"), "10 * 4**level + 2.");
}

}  // namespace gpgpu::python
