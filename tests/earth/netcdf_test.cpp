// The earth model's NetCDF output (gpgpu/earth/netcdf.hpp): a case-5 run written at level 4
// and read back through libnetcdf's own C calls — every value of every variable against the
// model's arrays and the grid (bit for bit where the file holds them as the model does, the
// float64 reference's bound where the file derives them), the UGRID and CF attributes, the
// compression; then the reader: a restart equal to the run bit for bit, and each mismatch of
// grid, case and record refused by name.
#include <netcdf.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "earth_test_fields.hpp"
#include "gpgpu/earth/cases.hpp"
#include "gpgpu/earth/model.hpp"
#include "gpgpu/earth/netcdf.hpp"
#include "gpgpu/earth/options.hpp"
#include "gpgpu/error.hpp"
#include "test_support.hpp"

namespace ge = gpgpu::earth;
namespace fs = std::filesystem;
using gpgpu::earth::test::grid_at;

namespace {

constexpr double eps64 = 1.0 / 9007199254740992.0;  // 2^-53

fs::path fresh_folder(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() /
                       ("gpgpu-netcdf-" + name + "-" + std::to_string(gpgpu::test::seed()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A NetCDF file opened with the C library alone, for reading back what the writer wrote.
class Raw {
 public:
  explicit Raw(const fs::path& path) {
    EXPECT_EQ(nc_open(path.c_str(), NC_NOWRITE, &id_), NC_NOERR);
  }
  ~Raw() { nc_close(id_); }
  int var(const char* name) const {
    int v = -1;
    EXPECT_EQ(nc_inq_varid(id_, name, &v), NC_NOERR) << name;
    return v;
  }
  std::size_t dim(const char* name) const {
    int d = -1;
    std::size_t n = 0;
    EXPECT_EQ(nc_inq_dimid(id_, name, &d), NC_NOERR) << name;
    EXPECT_EQ(nc_inq_dimlen(id_, d, &n), NC_NOERR);
    return n;
  }
  std::string text(const char* var_name, const char* att) const {
    const int v = var_name ? var(var_name) : NC_GLOBAL;
    std::size_t n = 0;
    if (nc_inq_attlen(id_, v, att, &n) != NC_NOERR) return "(missing)";
    std::string s(n, '\0');
    EXPECT_EQ(nc_get_att_text(id_, v, att, s.data()), NC_NOERR);
    return s;
  }
  double number(const char* var_name, const char* att) const {
    double x = NAN;
    EXPECT_EQ(nc_get_att_double(id_, var_name ? var(var_name) : NC_GLOBAL, att, &x), NC_NOERR)
        << att;
    return x;
  }
  // Record `r` of a (time, face) variable, or the whole of another, as float64.
  std::vector<double> doubles(const char* name, std::size_t n, long r = -1) const {
    std::vector<double> v(n, std::nan("poison"));
    if (r < 0) {
      EXPECT_EQ(nc_get_var_double(id_, var(name), v.data()), NC_NOERR) << name;
    } else {
      const std::size_t start[2] = {static_cast<std::size_t>(r), 0}, count[2] = {1, n};
      EXPECT_EQ(nc_get_vara_double(id_, var(name), start, count, v.data()), NC_NOERR) << name;
    }
    return v;
  }
  std::vector<float> floats(const char* name, std::size_t n, std::size_t r) const {
    std::vector<float> v(n, gpgpu::test::poison_float());
    const std::size_t start[2] = {r, 0}, count[2] = {1, n};
    EXPECT_EQ(nc_get_vara_float(id_, var(name), start, count, v.data()), NC_NOERR) << name;
    return v;
  }
  std::vector<int> ints(const char* name, std::size_t n) const {
    std::vector<int> v(n, gpgpu::test::poison_int);
    EXPECT_EQ(nc_get_var_int(id_, var(name), v.data()), NC_NOERR) << name;
    return v;
  }
  int id() const { return id_; }

 private:
  int id_ = -1;
};

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

// One run of case 5 at level 4 with three records: the start, after a few steps, and later.
struct Written {
  fs::path file;
  std::vector<ge::Fields> fields;
  std::vector<std::vector<double>> vorticity;
  std::vector<double> times;
  double time_step = 0;
  ge::Fields continued;  // two more steps after the last record
};

const Written& case5_level4() {
  static const Written w = [] {
    Written out;
    out.file = fresh_folder("case5") / "case5.nc";
    const ge::Grid& grid = grid_at(4);
    ge::Model model(gpgpu::test::context(), grid, ge::make_case(5));
    ge::NetcdfOptions options;
    options.history = "netcdf_test";
    ge::NetcdfWriter writer(out.file, grid, model.setup(), options);
    auto record = [&] {
      out.fields.push_back(model.fields());
      out.vorticity.push_back(model.vorticity());
      out.times.push_back(model.time());
      writer.write(model);
    };
    record();
    model.step(3);
    record();
    model.run(6 * 3600.0);
    record();
    out.time_step = model.time_step();
    writer.close();
    model.step(2);
    out.continued = model.fields();
    return out;
  }();
  return w;
}

TEST(EarthNetcdf, MeshIsUgridWithEveryCellAndCornerOfTheGrid) {
  const Written& w = case5_level4();
  const ge::Grid& g = grid_at(4);
  const Raw f(w.file);
  const std::size_t n = g.cell_count(), nodes = g.triangle_count();
  EXPECT_EQ(f.dim("nmesh_face"), n);
  EXPECT_EQ(f.dim("nmesh_node"), nodes);
  EXPECT_EQ(f.dim("nmesh_face_max_nodes"), 6u);
  EXPECT_EQ(f.text(nullptr, "Conventions"), "CF-1.8 UGRID-1.0");
  EXPECT_EQ(f.text("mesh", "cf_role"), "mesh_topology");
  EXPECT_EQ(f.number("mesh", "topology_dimension"), 2);
  EXPECT_EQ(f.text("mesh", "node_coordinates"), "mesh_node_x mesh_node_y");
  EXPECT_EQ(f.text("mesh", "face_node_connectivity"), "mesh_face_nodes");
  EXPECT_EQ(f.text("mesh", "face_face_connectivity"), "mesh_face_links");
  EXPECT_EQ(f.text("mesh_face_nodes", "cf_role"), "face_node_connectivity");
  EXPECT_EQ(f.number("mesh_face_nodes", "_FillValue"), -1);
  EXPECT_EQ(f.number("mesh_face_nodes", "start_index"), 0);
  EXPECT_EQ(f.text("mesh_node_x", "units"), "degrees_east");
  EXPECT_EQ(f.text("mesh_face_y", "units"), "degrees_north");

  // Face centres and nodes in degrees: the grid's unit vectors, converted here independently
  // (atan2 of the horizontal length rather than asin): float64, within a few eps64 of 180.
  const auto to_lat = [](const ge::Vec3& p) {
    return std::atan2(p.z, std::hypot(p.x, p.y)) * 180 / std::numbers::pi;
  };
  const auto to_lon = [](const ge::Vec3& p) {
    return std::atan2(p.y, p.x) * 180 / std::numbers::pi;
  };
  const double deg_tol = 64 * eps64 * 180;
  const auto fx = f.doubles("mesh_face_x", n), fy = f.doubles("mesh_face_y", n);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_NEAR(fx[i], to_lon(g.centres[i]), deg_tol) << "cell " << i;
    ASSERT_NEAR(fy[i], to_lat(g.centres[i]), deg_tol) << "cell " << i;
  }
  const auto nx = f.doubles("mesh_node_x", nodes), ny = f.doubles("mesh_node_y", nodes);
  for (std::size_t t = 0; t < nodes; ++t) {
    ASSERT_NEAR(ny[t], to_lat(g.corners[t]), deg_tol) << "node " << t;
    // Longitude is undefined at a pole; the corners never sit on one, but be explicit.
    if (std::abs(ny[t]) < 89.9) {
      ASSERT_NEAR(nx[t], to_lon(g.corners[t]), deg_tol) << "node " << t;
    }
  }

  // Each face lists its corners counter-clockwise seen from outside, then the fill value;
  // neighbour k shares the edge from corner k-1 to corner k.
  const auto face_nodes = f.ints("mesh_face_nodes", 6 * n);
  const auto links = f.ints("mesh_face_links", 6 * n);
  std::size_t pentagons = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int degree = g.degree[i];
    pentagons += degree == 5;
    for (int k = 0; k < 6; ++k) {
      const int node = face_nodes[6 * i + k], nb = links[6 * i + k];
      if (k >= degree) {
        ASSERT_EQ(node, -1) << "cell " << i;
        ASSERT_EQ(nb, -1) << "cell " << i;
        continue;
      }
      ASSERT_GE(node, 0);
      ASSERT_LT(static_cast<std::size_t>(node), nodes);
      ASSERT_EQ(nb, g.neighbours[i][k]) << "cell " << i << " slot " << k;
      // The node is a dual triangle holding the cell, the neighbour and the next neighbour.
      const auto& tri = g.triangles[node];
      const std::set<int> cells(tri.begin(), tri.end());
      ASSERT_TRUE(cells.count(static_cast<int>(i)) && cells.count(nb)) << "cell " << i;
      const int before = face_nodes[6 * i + (k + degree - 1) % degree];
      const ge::Vec3 a = g.corners[before] - g.centres[i], b = g.corners[node] - g.centres[i];
      ASSERT_GT(ge::dot(ge::cross(a, b), g.centres[i]), 0) << "cell " << i << " not ccw";
      // The edge from corner k-1 to corner k lies between this cell and neighbour k: both of
      // its corners are triangles that hold the neighbour.
      const auto& prev = g.triangles[before];
      ASSERT_TRUE(std::set<int>(prev.begin(), prev.end()).count(nb)) << "cell " << i;
    }
  }
  EXPECT_EQ(pentagons, 12u);

  // Areas: the grid's unit-sphere areas times a^2, exactly, and summing to 4 pi a^2 within
  // float64 rounding of n terms.
  const double a = ge::make_case(5).planet.radius;
  const auto area = f.doubles("mesh_face_area", n);
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(same_bits(area[i], a * a * g.areas[i])) << "cell " << i;
    sum += area[i];
  }
  EXPECT_NEAR(sum, 4 * std::numbers::pi * a * a, 1e-9 * sum);
  EXPECT_EQ(f.text("mesh_face_area", "standard_name"), "cell_area");
}

TEST(EarthNetcdf, FieldsAreTheModelsBitForBit) {
  const Written& w = case5_level4();
  const ge::Grid& g = grid_at(4);
  const Raw f(w.file);
  const std::size_t n = g.cell_count(), records = w.fields.size();
  ASSERT_EQ(f.dim("time"), records);
  int unlimited = -1, time_dim = -1;
  nc_inq_unlimdim(f.id(), &unlimited);
  nc_inq_dimid(f.id(), "time", &time_dim);
  EXPECT_EQ(unlimited, time_dim);
  const auto times = f.doubles("time", records);
  EXPECT_EQ(f.text("time", "units"), "seconds since 2000-01-01 00:00:00");
  const auto surface = f.doubles("surface_altitude", n);
  for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(same_bits(surface[i], w.fields[0].surface[i]));
  for (std::size_t r = 0; r < records; ++r) {
    SCOPED_TRACE("record " + std::to_string(r));
    EXPECT_TRUE(same_bits(times[r], w.times[r]));
    const auto& m = w.fields[r];
    const auto h = f.doubles("h", n, static_cast<long>(r));
    const auto zeta = f.doubles("vorticity", n, static_cast<long>(r));
    const auto vx = f.floats("velocity_x", n, r), vy = f.floats("velocity_y", n, r),
               vz = f.floats("velocity_z", n, r);
    const auto u = f.doubles("u", n, static_cast<long>(r)),
               v = f.doubles("v", n, static_cast<long>(r));
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(same_bits(h[i], m.height[i])) << "h at cell " << i;
      ASSERT_TRUE(same_bits(zeta[i], w.vorticity[r][i])) << "vorticity at cell " << i;
      ASSERT_TRUE(same_bits(vx[i], m.velocity[i].x) && same_bits(vy[i], m.velocity[i].y) &&
                  same_bits(vz[i], m.velocity[i].z))
          << "velocity at cell " << i;
      // u, v: the velocity's components along east and north, here from the horizontal
      // projection (east = z x p / |z x p|): float64, two different formulas agreeing to
      // within ~16 eps64 of |velocity|.
      const ge::Vec3& p = g.centres[i];
      // At a pole east is the direction of longitude 90 (netcdf.hpp, east_north).
      const bool pole = p.x == 0 && p.y == 0;
      const ge::Vec3 east = pole ? ge::Vec3{0, 1, 0} : ge::normalized(ge::Vec3{-p.y, p.x, 0});
      const ge::Vec3 north = ge::cross(p, east);
      const double speed = ge::norm(m.velocity[i]);
      ASSERT_NEAR(u[i], ge::dot(m.velocity[i], east), 16 * eps64 * speed + 1e-300) << i;
      ASSERT_NEAR(v[i], ge::dot(m.velocity[i], north), 16 * eps64 * speed + 1e-300) << i;
    }
  }
  // The fields differ between records (the run moved): a file of one record repeated fails.
  EXPECT_FALSE(same_bits(f.doubles("h", n, 0)[0], f.doubles("h", n, 2)[0]) &&
               same_bits(f.doubles("h", n, 0)[n / 2], f.doubles("h", n, 2)[n / 2]));
}

TEST(EarthNetcdf, VariablesAreCompressedAndDescribed) {
  const Raw f(case5_level4().file);
  for (const char* name : {"h", "u", "v", "vorticity", "velocity_x", "mesh_node_x",
                           "mesh_face_nodes", "surface_altitude"}) {
    int shuffle = 0, deflate = 0, level = 0;
    ASSERT_EQ(nc_inq_var_deflate(f.id(), f.var(name), &shuffle, &deflate, &level), NC_NOERR);
    EXPECT_TRUE(shuffle && deflate && level == 4) << name;
  }
  for (const char* name : {"h", "u", "v", "vorticity", "surface_altitude"}) {
    EXPECT_EQ(f.text(name, "mesh"), "mesh") << name;
    EXPECT_EQ(f.text(name, "location"), "face") << name;
    EXPECT_EQ(f.text(name, "coordinates"), "mesh_face_y mesh_face_x") << name;
    EXPECT_NE(f.text(name, "units"), "(missing)") << name;
  }
  EXPECT_EQ(f.text("u", "standard_name"), "eastward_wind");
  EXPECT_EQ(f.text("v", "standard_name"), "northward_wind");
  EXPECT_EQ(f.text("vorticity", "standard_name"), "atmosphere_relative_vorticity");
  EXPECT_EQ(f.text("surface_altitude", "standard_name"), "surface_altitude");
  EXPECT_EQ(f.text(nullptr, "history"), "netcdf_test");
  EXPECT_EQ(f.number(nullptr, "gpgpu_case"), 5);
  EXPECT_EQ(f.number(nullptr, "gpgpu_grid_level"), 4);
}

TEST(EarthNetcdf, RestartFromAFileContinuesTheRunBitForBit) {
  const Written& w = case5_level4();
  const ge::Grid& g = grid_at(4);
  const auto setup = ge::make_case(5);
  const auto last = ge::read_netcdf_state(w.file, g, setup);
  EXPECT_EQ(last.records, 3u);
  EXPECT_EQ(last.record, 2u);
  EXPECT_TRUE(same_bits(last.time, w.times[2]));
  const auto middle = ge::read_netcdf_state(w.file, g, setup, 1);
  EXPECT_EQ(middle.record, 1u);
  EXPECT_EQ(ge::read_netcdf_state(w.file, g, setup, -3).record, 0u);
  // A model set from the file holds the written state bit for bit, and two steps on it
  // reproduce the two steps the original run took after its last record.
  ge::Model restarted(gpgpu::test::context(), g, setup);
  restarted.set_fields(last.fields);
  const auto a = restarted.fields(), b = w.fields[2];
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    ASSERT_TRUE(same_bits(a.height[i], b.height[i])) << i;
    ASSERT_TRUE(same_bits(a.velocity[i].x, b.velocity[i].x) &&
                same_bits(a.velocity[i].y, b.velocity[i].y) &&
                same_bits(a.velocity[i].z, b.velocity[i].z))
        << i;
  }
  restarted.set_time_step(w.time_step);
  restarted.step(2);
  const auto c = restarted.fields();
  for (std::size_t i = 0; i < g.cell_count(); ++i) {
    ASSERT_TRUE(same_bits(c.height[i], w.continued.height[i])) << i;
    ASSERT_TRUE(same_bits(c.velocity[i].x, w.continued.velocity[i].x)) << i;
  }
}

TEST(EarthNetcdf, ReaderRefusesAnotherGridCaseOrRecordByName) {
  const Written& w = case5_level4();
  const auto message = [&](const ge::Grid& grid, const ge::CaseSetup& setup, long record) {
    return gpgpu::test::error_message_of(
        [&] { ge::read_netcdf_state(w.file, grid, setup, record); });
  };
  EXPECT_NE(
      message(grid_at(3), ge::make_case(5), -1).find("level-4 grid; this run's grid is level 3"),
      std::string::npos);
  EXPECT_NE(message(grid_at(4), ge::make_case(2), -1).find("holds case 5"), std::string::npos);
  EXPECT_NE(message(grid_at(4), ge::make_case(5), 3).find("holds 3 time records"),
            std::string::npos);
  EXPECT_NE(message(grid_at(4), ge::make_case(5), -4).find("record -4"), std::string::npos);
  ge::GridOptions bisection;
  bisection.level = 4;
  bisection.optimization = ge::GridOptimization::Bisection;
  bisection.device = ge::GridDevice::Cpu;
  const ge::Grid other = ge::build_grid(bisection);
  EXPECT_NE(message(other, ge::make_case(5), -1).find("holds fields of a spring grid"),
            std::string::npos);
  // The same kind and level, but points moved: the coordinates check names the cell.
  ge::Grid moved = grid_at(4);
  moved.centres[7] = ge::normalized(moved.centres[7] + ge::Vec3{1e-3, 0, 0});
  EXPECT_NE(message(moved, ge::make_case(5), -1).find("cell 7's centre"), std::string::npos);

  EXPECT_THROW(ge::read_netcdf_state(w.file, grid_at(3), ge::make_case(5)), gpgpu::ArgumentError);
  const fs::path dir = fresh_folder("refuse");
  EXPECT_NE(gpgpu::test::error_message_of([&] {
              ge::read_netcdf_state(dir / "missing.nc", grid_at(4), ge::make_case(5));
            }).find("missing.nc: cannot open it as NetCDF"),
            std::string::npos);
  std::ofstream(dir / "text.nc") << "not a NetCDF file\n";
  EXPECT_THROW(ge::read_netcdf_state(dir / "text.nc", grid_at(4), ge::make_case(5)), gpgpu::Error);
  // A valid NetCDF file that gpgpu did not write.
  int id = -1;
  ASSERT_EQ(nc_create((dir / "foreign.nc").c_str(), NC_NETCDF4, &id), NC_NOERR);
  nc_put_att_text(id, NC_GLOBAL, "Conventions", 6, "CF-1.8");
  nc_close(id);
  EXPECT_THROW(ge::read_netcdf_state(dir / "foreign.nc", grid_at(4), ge::make_case(5)),
               gpgpu::FormatError);
  fs::remove_all(dir);
}

TEST(EarthNetcdf, WriterRefusesBadArgumentsAndLeavesNoFile) {
  const ge::Grid& g = grid_at(2);
  const auto setup = ge::make_case(2);
  const fs::path dir = fresh_folder("writer");
  ge::NetcdfOptions too_much;
  too_much.deflate_level = 10;
  EXPECT_THROW(ge::NetcdfWriter(dir / "a.nc", g, setup, too_much), gpgpu::ArgumentError);
  {
    ge::NetcdfWriter out(dir / "b.nc", g, setup);
    const auto f = ge::initial_fields(g, setup);
    const std::vector<double> short_zeta(g.cell_count() - 1, 0.0);
    EXPECT_THROW(out.write(0, f, short_zeta), gpgpu::SizeMismatchError);
    // Destroyed without close(): nothing is left, not even the temporary.
  }
  // A folder that does not exist, and a "folder" that is a file: a clear error, no file.
  const auto missing = gpgpu::test::error_message_of(
      [&] { ge::NetcdfWriter(dir / "no" / "such" / "c.nc", g, setup); });
  EXPECT_NE(missing.find("cannot write a file in"), std::string::npos) << missing;
  std::ofstream(dir / "plain") << "x";
  EXPECT_THROW(ge::NetcdfWriter(dir / "plain" / "d.nc", g, setup), gpgpu::Error);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"plain"});
  // After close() the writer is finished: a later write is refused, a second close is a no-op.
  ge::NetcdfWriter out(dir / "e.nc", g, setup);
  const auto f = ge::initial_fields(g, setup);
  const std::vector<double> zeta(g.cell_count(), 0.0);
  out.write(0, f, zeta);
  out.close();
  out.close();
  EXPECT_THROW(out.write(1, f, zeta), gpgpu::Error);
  EXPECT_TRUE(fs::exists(dir / "e.nc"));
  fs::remove_all(dir);
}

}  // namespace
