// gpgpu/earth/netcdf.hpp — the shallow-water model's fields as NetCDF-4 files that xarray,
// ncview, Panoply and ParaView open: the mesh as UGRID-1.0, the attributes as CF-1.8.
//
//   namespace ge = gpgpu::earth;
//   ge::Model model(ctx, grid, ge::make_case(5));
//   ge::NetcdfWriter out("case5.nc", grid, model.setup());  // the mesh and the static fields
//   out.write(model);                                       // one time record: h, u, v, ...
//   for (int day = 0; day < 15; ++day) { model.run(86400); out.write(model); }
//   out.close();                              // renamed into place; nothing is left without it
//
//   ge::write_netcdf("state.nc", model);      // the current state as a file of one record
//   ge::NetcdfState s = ge::read_netcdf_state("state.nc", grid, model.setup());
//   model.set_fields(s.fields);               // checked: the file's grid and case are these
//
// Link gpgpu::earth_netcdf (CMake); it links Debian's libnetcdf, which gpgpu::earth does not.
// docs/earth-netcdf.md describes the layout: dimensions, variables, attributes, and how to
// open a file in xarray, ncview and ParaView.
//
// The file. NetCDF-4 (HDF5), every variable compressed (shuffle + deflate, level
// NetcdfOptions::deflate_level), one time record per write() along an unlimited `time`
// dimension. The mesh (variable `mesh`, cf_role mesh_topology): faces are the model's cells
// (their centres as mesh_face_x / mesh_face_y, degrees east / north), nodes are the corners of
// the control volumes (mesh_node_x / mesh_node_y), mesh_face_nodes lists each face's corners
// counter-clockwise (six columns; a pentagon's sixth is the _FillValue -1) and mesh_face_links
// its neighbours in the same slots. Per record: h (fluid depth, m), u and v (eastward and
// northward wind, m/s, as east_north() in vec3.hpp gives them), vorticity (1/s), and
// velocity_x/y/z, the model's own geocentric Cartesian velocity in float32: together with h they
// restart a run bit for bit. Static: surface_altitude (the case's topography, m) and mesh_face_area
// (m^2). h and the velocity are the exact values Model::fields() returns (h in float64: the model
// stores its deviation from the mean depth in float32, and fields() adds the mean in float64).
//
// Writing is all or nothing. The constructor makes a temporary file beside `path`
// (".NAME.tmp-PID-N"), so that a folder that cannot be written fails at once; the NetCDF file
// is assembled in memory (libnetcdf's in-memory files: the process needs about the finished
// file's size in memory) and close() writes its bytes to the temporary, flushes them to disk
// and renames it to `path`. Any failure — a full disk, an error from libnetcdf — throws Error
// naming the file and the cause, and removes the temporary; a writer destroyed without
// close() removes it too. An existing file at `path` is replaced only by a complete new one.
// (Why in memory: libnetcdf 4.9 with HDF5 1.10 crashes when it closes a file whose disk
// write failed, so no disk write of theirs may fail; every disk write here is gpgpu's own.
// The price: libnetcdf makes in-memory files without HDF5's creation-order tracking, so
// netCDF's append mode — nc_open(NC_WRITE), netCDF4.Dataset(path, "a") — refuses them;
// every reader opens them, and `nccopy FILE.nc COPY.nc` gives a copy that can be appended to.)
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "gpgpu/earth/cases.hpp"
#include "gpgpu/earth/grid.hpp"
#include "gpgpu/earth/model.hpp"
#include "gpgpu/earth/vec3.hpp"

namespace gpgpu::earth {

// How NetcdfWriter, write_netcdf and netcdf_contents write a file.
struct NetcdfOptions {
  int deflate_level = 4;   // 0 (stored) .. 9; shuffle is on whenever deflate is
  double time_offset = 0;  // s added to the times written (a run started from a file goes on)
  std::string history;     // the global attribute `history` (e.g. the command line); "" omits it
};

// Writes a model run as a NetCDF-4 file of time records, all or nothing: the file appears at
// its path only when close() succeeds (the manual at the top of this header). Move-only.
class NetcdfWriter {
 public:
  // Creates the temporary file and writes the mesh, the topography and the cell areas. The
  // grid must outlive the writer (write() reads its cell centres). Throws ArgumentError for a
  // deflate level outside 0..9 or a grid without cells, Error when the file cannot be made.
  NetcdfWriter(const std::filesystem::path& path, const Grid& grid, const CaseSetup& setup,
               NetcdfOptions options = {});
  ~NetcdfWriter();  // without close(): removes the temporary file
  // @{
  // Moves the open file; assigning over an open writer removes that writer's temporary file
  // as its destructor would. A moved-from writer may only be destroyed or assigned to.
  NetcdfWriter(NetcdfWriter&&) noexcept;
  NetcdfWriter& operator=(NetcdfWriter&&) noexcept;
  // @}

  // Appends one time record: `time` (s since the start; time_offset is added) and the fields
  // and relative vorticity of every cell (SizeMismatchError otherwise). After a failed write
  // the writer is closed: the temporary is gone and later calls throw Error.
  void write(double time, const Fields& fields, std::span<const double> vorticity);
  // write(model.time(), model.fields(), model.vorticity()) — one process only: on ranks of a
  // Team the fields arrive on rank 0, which alone should hold a writer (see tools/).
  void write(const Model& model);
  // Finishes the file and renames it to path(). Throws Error (and removes the temporary)
  // when that fails; a second call does nothing.
  void close();

  std::size_t records() const;  // the time records written so far
  // Where close() puts the file (the path given to the constructor).
  const std::filesystem::path& path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The model's current state as a file of one record.
void write_netcdf(const std::filesystem::path& path, const Model& model,
                  const NetcdfOptions& options = {});

// A time record read back, for starting a run from it.
struct NetcdfState {
  Fields fields;            // height and velocity as written, surface from the file
  double time = 0;          // s since the start of the run that wrote it (time_offset included)
  std::size_t record = 0;   // the record read, counted from 0 (a negative request resolved)
  std::size_t records = 0;  // how many time records the file holds
};

// Reads record `record` (the last one when negative; -2 the one before, ...) of a file
// NetcdfWriter wrote, after checking that it belongs to `grid` and `setup`: the grid's level,
// kind and cell count, every cell centre (within 1e-3 of the smallest spacing: a grid whose
// springs ran on a GPU differs from the CPU's by far less, another kind of grid by far more),
// the case number and alpha.
// Throws Error when the file cannot be opened, FormatError naming the variable or attribute
// that is missing or malformed, and ArgumentError naming what does not match (both values),
// or a record out of range.
NetcdfState read_netcdf_state(const std::filesystem::path& path, const Grid& grid,
                              const CaseSetup& setup, long record = -1);

// What a file of one record holds, in memory: every variable (name, dimension names, values
// in C order, attributes) and the global attributes — the values and attributes the writer
// writes, computed by the same code. For building the same dataset elsewhere: the Python
// module's Model.to_xarray() makes its xarray.Dataset from it.
using NetcdfAttribute = std::variant<std::string, int, double>;
// One variable of the file, as the writer writes it.
struct NetcdfVariable {
  std::string name;                     // as in the file: "h", "mesh_face_x", "mesh", ...
  std::vector<std::string> dimensions;  // "time" has length 1 here
  std::vector<std::size_t> shape;       // the dimensions' lengths (empty: a scalar)
  // Every value in C order, in the variable's type in the file (int for the mesh's
  // connectivity, float for the float32 velocity, double otherwise).
  std::variant<std::vector<int>, std::vector<float>, std::vector<double>> values;
  // The variable's attributes (units, standard_name, UGRID's mesh and location, ...), in the
  // order the writer writes them.
  std::vector<std::pair<std::string, NetcdfAttribute>> attributes;
};
// A whole file of one record: what netcdf_contents returns.
struct NetcdfContents {
  std::vector<NetcdfVariable> variables;  // in the order the writer defines them
  // The global attributes (Conventions, the grid and case that made the file, history, ...).
  std::vector<std::pair<std::string, NetcdfAttribute>> attributes;
};
// Throws SizeMismatchError unless the fields and vorticity have one value per cell.
NetcdfContents netcdf_contents(const Grid& grid, const CaseSetup& setup, double time,
                               const Fields& fields, std::span<const double> vorticity,
                               const NetcdfOptions& options = {});

}  // namespace gpgpu::earth
