// NetcdfWriter (gpgpu/earth/netcdf.hpp): defines the file from layout.hpp, writes the mesh
// once and a time record per write() into an in-memory NetCDF file, and at close() writes its
// bytes to a temporary file beside the target, renamed into place.
#include <cstdint>
#include <map>
#include <optional>
#include <type_traits>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "contents.hpp"
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
  void put(Quantity q, const detail::Values& values);
  void put_record(Quantity q, const detail::Values& values);
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
    const int id = file.define_variable(v.name, v.type, dims.at(v.span));
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

void NetcdfWriter::Impl::put(Quantity q, const detail::Values& values) {
  const int id = ids.at(q);
  const int status = std::visit(
      [&](const auto& v) {
        using T = typename std::decay_t<decltype(v)>::value_type;
        if constexpr (std::is_same_v<T, int>) return nc_put_var_int(file.id(), id, v.data());
        if constexpr (std::is_same_v<T, float>) return nc_put_var_float(file.id(), id, v.data());
        if constexpr (std::is_same_v<T, double>) return nc_put_var_double(file.id(), id, v.data());
      },
      values);
  file.check(status, "cannot write " + detail::layout::variable(q).name);
}

void NetcdfWriter::Impl::put_record(Quantity q, const detail::Values& values) {
  const int id = ids.at(q);
  const std::size_t start[2] = {records, 0};
  const int status = std::visit(
      [&](const auto& v) {
        using T = typename std::decay_t<decltype(v)>::value_type;
        const std::size_t count[2] = {1, v.size()};
        if constexpr (std::is_same_v<T, int>)
          return nc_put_vara_int(file.id(), id, start, count, v.data());
        if constexpr (std::is_same_v<T, float>)
          return nc_put_vara_float(file.id(), id, start, count, v.data());
        if constexpr (std::is_same_v<T, double>)
          return nc_put_vara_double(file.id(), id, start, count, v.data());
      },
      values);
  file.check(status, fmt::format("cannot write {} of record {}", detail::layout::variable(q).name,
                                 records));
}

void NetcdfWriter::Impl::write_mesh() {
  for (const auto& v : detail::layout::variables()) {
    if (v.span == Span::Time || v.span == Span::TimeFace) continue;
    put(v.quantity, detail::static_values(v.quantity, *grid, setup));
  }
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
    const double t = time + m.options.time_offset;
    const std::size_t at = m.records;
    m.file.check(nc_put_var1_double(m.file.id(), m.ids.at(Quantity::Time), &at, &t),
                 fmt::format("cannot write the time of record {}", at));
    for (const auto& v : detail::layout::variables()) {
      if (v.span != Span::TimeFace) continue;
      m.put_record(v.quantity, detail::record_values(v.quantity, *m.grid, fields, vorticity));
    }
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
