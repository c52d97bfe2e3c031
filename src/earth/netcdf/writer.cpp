// NetcdfWriter (gpgpu/earth/netcdf.hpp): defines the file from layout.hpp, writes the mesh
// once and a time record per write() into an in-memory NetCDF file, and at close() writes its
// bytes to a temporary file beside the target, renamed into place.
#include <cstdint>
#include <map>
#include <numbers>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "gpgpu/earth/netcdf.hpp"
#include "gpgpu/error.hpp"
#include "layout.hpp"
#include "nc_file.hpp"
#include "temporary_file.hpp"

namespace gpgpu::earth {

namespace fs = std::filesystem;
using detail::NcFile;
using detail::layout::Quantity;
using detail::layout::Span;

namespace {

constexpr double degrees = 180.0 / std::numbers::pi;

std::vector<int> dimensions_of(Span span, const std::map<Span, std::vector<int>>& ids) {
  return ids.at(span);
}

std::vector<double> per_cell(const Grid& g, auto&& value) {
  std::vector<double> v(g.cell_count());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = value(i);
  return v;
}

// Six slots per cell: `slot(i, k)` for k below the cell's degree, -1 (the fill value) past it.
std::vector<int> per_slot(const Grid& g, auto&& slot) {
  std::vector<int> v(6 * g.cell_count(), -1);
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    for (int k = 0; k < g.degree[i]; ++k) v[6 * i + static_cast<std::size_t>(k)] = slot(i, k);
  }
  return v;
}

}  // namespace

std::pair<double, double> east_north(const Vec3& p, const Vec3& velocity) {
  const double lat = latitude(p), lon = longitude(p);
  return {dot(velocity, east_at(lon)), dot(velocity, north_at(lat, lon))};
}

struct NetcdfWriter::Impl {
  fs::path path;
  std::optional<detail::TemporaryFile> temporary;
  NcFile file;
  const Grid* grid = nullptr;
  CaseSetup setup;
  NetcdfOptions options;
  std::map<Quantity, int> ids;
  std::size_t records = 0;
  enum class State { Open, Closed, Failed } state = State::Open;

  void define();
  void write_mesh();
  void put(Quantity q, const std::vector<double>& values);
  void put(Quantity q, const std::vector<int>& values);
  void put_record(Quantity q, const std::vector<double>& values);
  void put_record(Quantity q, const std::vector<float>& values);
  void abandon() {
    file = NcFile();  // nc_abort of the in-memory file
    temporary.reset();
    state = State::Failed;
  }
  // Runs `step`; on any failure removes the temporary before the error goes on.
  template <class F>
  void guarded(F&& step) {
    if (state != State::Open) {
      throw Error(fmt::format("NetCDF output {}: the writer is {}", path.string(),
                              state == State::Closed ? "closed" : "gone after a failed write"));
    }
    try {
      step();
    } catch (...) {
      abandon();
      throw;
    }
  }
};

void NetcdfWriter::Impl::define() {
  const Grid& g = *grid;
  const int node = file.define_dimension(detail::layout::node_dimension, g.triangle_count());
  const int face = file.define_dimension(detail::layout::face_dimension, g.cell_count());
  const int slot = file.define_dimension(detail::layout::slot_dimension, 6);
  const int time = file.define_dimension(detail::layout::time_dimension, NC_UNLIMITED);
  const std::map<Span, std::vector<int>> dims{{Span::None, {}},     {Span::Node, {node}},
                                              {Span::Face, {face}}, {Span::FaceSlots, {face, slot}},
                                              {Span::Time, {time}}, {Span::TimeFace, {time, face}}};
  for (const auto& v : detail::layout::variables()) {
    const int id = file.define_variable(v.name, v.type, dimensions_of(v.span, dims));
    ids[v.quantity] = id;
    for (const auto& a : v.attributes) {
      std::visit([&](const auto& value) { file.put_attribute(id, a.name, value); }, a.value);
    }
    if (v.span == Span::TimeFace) {
      // One chunk per record and field: a reader of one time reads one chunk.
      const std::size_t chunk[2] = {1, g.cell_count()};
      file.check(nc_def_var_chunking(file.id(), id, NC_CHUNKED, chunk), "cannot chunk " + v.name);
    }
    if (v.span != Span::None && options.deflate_level > 0) {
      file.check(nc_def_var_deflate(file.id(), id, 1, 1, options.deflate_level),
                 "cannot compress " + v.name);
    }
  }
  for (const auto& a : detail::layout::global_attributes(g, setup, options)) {
    std::visit([&](const auto& value) { file.put_attribute(NC_GLOBAL, a.name, value); }, a.value);
  }
  file.end_definitions();
}

void NetcdfWriter::Impl::put(Quantity q, const std::vector<double>& values) {
  file.check(nc_put_var_double(file.id(), ids.at(q), values.data()),
             "cannot write " + detail::layout::variable(q).name);
}

void NetcdfWriter::Impl::put(Quantity q, const std::vector<int>& values) {
  file.check(nc_put_var_int(file.id(), ids.at(q), values.data()),
             "cannot write " + detail::layout::variable(q).name);
}

void NetcdfWriter::Impl::put_record(Quantity q, const std::vector<double>& values) {
  const std::size_t start[2] = {records, 0}, count[2] = {1, values.size()};
  file.check(
      nc_put_vara_double(file.id(), ids.at(q), start, count, values.data()),
      fmt::format("cannot write {} of record {}", detail::layout::variable(q).name, records));
}

void NetcdfWriter::Impl::put_record(Quantity q, const std::vector<float>& values) {
  const std::size_t start[2] = {records, 0}, count[2] = {1, values.size()};
  file.check(
      nc_put_vara_float(file.id(), ids.at(q), start, count, values.data()),
      fmt::format("cannot write {} of record {}", detail::layout::variable(q).name, records));
}

void NetcdfWriter::Impl::write_mesh() {
  const Grid& g = *grid;
  std::vector<double> node_lon(g.triangle_count()), node_lat(g.triangle_count());
  for (std::size_t t = 0; t < g.triangle_count(); ++t) {
    node_lon[t] = degrees * longitude(g.corners[t]);
    node_lat[t] = degrees * latitude(g.corners[t]);
  }
  put(Quantity::NodeLongitude, node_lon);
  put(Quantity::NodeLatitude, node_lat);
  put(Quantity::FaceLongitude,
      per_cell(g, [&](std::size_t i) { return degrees * longitude(g.centres[i]); }));
  put(Quantity::FaceLatitude,
      per_cell(g, [&](std::size_t i) { return degrees * latitude(g.centres[i]); }));
  put(Quantity::FaceNodes,
      per_slot(g, [&](std::size_t i, int k) { return g.cell_triangles[i][k]; }));
  put(Quantity::FaceLinks, per_slot(g, [&](std::size_t i, int k) { return g.neighbours[i][k]; }));
  const double a2 = setup.planet.radius * setup.planet.radius;
  put(Quantity::FaceArea, per_cell(g, [&](std::size_t i) { return a2 * g.areas[i]; }));
  put(Quantity::Surface, initial_fields(g, setup).surface);
}

NetcdfWriter::NetcdfWriter(const fs::path& path, const Grid& grid, const CaseSetup& setup,
                           NetcdfOptions options)
    : impl_(std::make_unique<Impl>()) {
  if (options.deflate_level < 0 || options.deflate_level > 9) {
    throw ArgumentError(fmt::format("NetCDF output {}: the deflate level must be 0..9; got {}",
                                    path.string(), options.deflate_level));
  }
  if (grid.cell_count() == 0) {
    throw ArgumentError(fmt::format("NetCDF output {}: the grid has no cells", path.string()));
  }
  if (path.filename().empty()) {
    throw ArgumentError(
        fmt::format("NetCDF output '{}' names a folder, not a file", path.string()));
  }
  auto& m = *impl_;
  m.path = path;
  m.temporary.emplace(path);  // a folder that cannot be written fails here, before any work
  m.grid = &grid;
  m.setup = setup;
  m.options = options;
  // Room for the mesh (about 70 bytes a cell before compression) and a few records.
  m.file = NcFile::create_in_memory(path, 256 * grid.cell_count());
  m.guarded([&] {
    m.define();
    m.write_mesh();
  });
}

NetcdfWriter::~NetcdfWriter() {
  if (impl_ && impl_->state == Impl::State::Open) impl_->abandon();
}

NetcdfWriter::NetcdfWriter(NetcdfWriter&&) noexcept = default;

NetcdfWriter& NetcdfWriter::operator=(NetcdfWriter&& other) noexcept {
  if (this != &other) {
    if (impl_ && impl_->state == Impl::State::Open) impl_->abandon();
    impl_ = std::move(other.impl_);
  }
  return *this;
}

void NetcdfWriter::write(double time, const Fields& fields, std::span<const double> vorticity) {
  auto& m = *impl_;
  const std::size_t n = m.grid->cell_count();
  if (fields.height.size() != n || fields.velocity.size() != n || vorticity.size() != n) {
    throw SizeMismatchError(fmt::format(
        "NetCDF output {}: the grid has {} cells; got {} heights, {} velocities and {} "
        "vorticities",
        m.path.string(), n, fields.height.size(), fields.velocity.size(), vorticity.size()));
  }
  m.guarded([&] {
    std::vector<double> east(n), north(n);
    std::vector<float> vx(n), vy(n), vz(n);
    for (std::size_t i = 0; i < n; ++i) {
      const Vec3& u = fields.velocity[i];
      std::tie(east[i], north[i]) = east_north(m.grid->centres[i], u);
      // The model's velocity is float32 (fields() widened it): narrowing gives it back exactly.
      vx[i] = static_cast<float>(u.x), vy[i] = static_cast<float>(u.y),
      vz[i] = static_cast<float>(u.z);
    }
    const double t = time + m.options.time_offset;
    const std::size_t at = m.records;
    m.file.check(nc_put_var1_double(m.file.id(), m.ids.at(Quantity::Time), &at, &t),
                 fmt::format("cannot write the time of record {}", at));
    m.put_record(Quantity::Height, fields.height);
    m.put_record(Quantity::Eastward, east);
    m.put_record(Quantity::Northward, north);
    m.put_record(Quantity::Vorticity, std::vector<double>(vorticity.begin(), vorticity.end()));
    m.put_record(Quantity::VelocityX, vx);
    m.put_record(Quantity::VelocityY, vy);
    m.put_record(Quantity::VelocityZ, vz);
    ++m.records;
  });
}

void NetcdfWriter::write(const Model& model) {
  const Fields f = model.fields();
  const std::vector<double> zeta = model.vorticity();
  write(model.time(), f, zeta);
}

void NetcdfWriter::close() {
  auto& m = *impl_;
  if (m.state == Impl::State::Closed) return;
  m.guarded([&] {
    const detail::NcImage image = m.file.close_to_memory();
    m.temporary->commit(image.bytes.get(), image.size);
    m.temporary.reset();
    m.state = Impl::State::Closed;
  });
}

std::size_t NetcdfWriter::records() const {
  return impl_->records;
}

const fs::path& NetcdfWriter::path() const {
  return impl_->path;
}

void write_netcdf(const fs::path& path, const Model& model, const NetcdfOptions& options) {
  NetcdfWriter out(path, model.grid(), model.setup(), options);
  out.write(model);
  out.close();
}

}  // namespace gpgpu::earth
