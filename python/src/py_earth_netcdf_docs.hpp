// The docstrings of gpgpu.earth.Model's NetCDF methods: one text for the build with libnetcdf
// (py_earth_netcdf.cpp) and the one without (py_earth_netcdf_unavailable.cpp), whose methods
// say the same and add why they refuse.
#pragma once

namespace gpgpu::python::netcdf_docs {

inline constexpr const char* to_netcdf =
    R"(Writes the current state as a NetCDF file of one record (UGRID-1.0 mesh, CF-1.8).

    model.to_netcdf("case5.nc")
    xarray.open_dataset("case5.nc")            # h, u, v, vorticity, ... on mesh_face_x/y

docs/earth-netcdf.md describes the layout. Atomic: the file appears complete or not at all;
raises gpgpu.Error naming the file and the cause when it cannot be written.)";

inline constexpr const char* netcdf_writer =
    R"(A NetCDF file of many records: write() appends the current state.

    with model.netcdf_writer("run.nc") as out:
        out.write()                            # the start
        for day in range(5):
            model.advance(days=1)
            out.write()
    # closed (renamed into place) at the end of the block; an exception leaves no file)";

inline constexpr const char* load_netcdf =
    R"(Sets the fields from a record of a file gpgpu earth wrote (default: the last).

    model = gpgpu.earth.Model(case=5, level=5)
    model.load_netcdf("case5.nc")              # {'time': ..., 'record': ..., 'records': ...}

The file must hold this case on this grid (level, kind, cells, coordinates): anything else
raises gpgpu.ArgumentError naming what differs. model.time continues from the record's time.)";

// Appended to each in a build without libnetcdf.
inline constexpr const char* unavailable_note =
    "\n\nThis gpgpu was built without libnetcdf: the call raises gpgpu.UnsupportedError "
    "(gpgpu.earth.netcdf_available is False).";

}  // namespace gpgpu::python::netcdf_docs
