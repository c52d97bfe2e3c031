"""gpgpu.earth: the shallow-water model on a geodesic icosahedral grid, from Python.

    import gpgpu.earth as earth
    model = earth.Model(case=2, level=4)
    model.advance(days=1)
    h = model.h                                  # float64 (n,), metres
    lat, lon = model.grid.lat, model.grid.lon    # cell centres, degrees
    print(model.diagnostics()["errors"])         # case 2 has an exact solution
    model.to_netcdf("case2.nc")                  # UGRID-1.0 + CF-1.8 (docs/earth-netcdf.md)
    ds = model.to_xarray()                       # the same as an xarray.Dataset

The classes are the extension's submodule gpgpu._gpgpu.earth (help(gpgpu.earth.Model));
Model.to_xarray is defined here.
"""

from ._gpgpu import earth as _earth
from ._gpgpu.earth import *  # noqa: F401,F403  (the extension's classes and functions)


def _to_xarray(self):
    """The current state as an xarray.Dataset: what to_netcdf() writes, variable for variable.

        ds = model.to_xarray()
        ds.h.isel(time=0)                        # on mesh_face_y / mesh_face_x (degrees)
        ds.h.attrs["units"], ds.attrs["Conventions"]   # 'm', 'CF-1.8 UGRID-1.0'

    Built from the values and attributes the NetCDF writer uses (decoded as
    xarray.open_dataset decodes the file: times as dates, fill values masked). Needs xarray
    (Debian: python3-xarray) and a gpgpu built with libnetcdf (gpgpu.earth.netcdf_available).
    """
    try:
        import xarray as xr
    except ImportError as error:  # pragma: no cover - xarray is installed where tests run
        raise ImportError("Model.to_xarray needs xarray (Debian: apt-get install "
                          "python3-xarray)") from error
    contents = self._netcdf_contents()
    variables = {name: xr.Variable(dims, values, attrs)
                 for name, dims, values, attrs in contents["variables"]}
    return xr.decode_cf(xr.Dataset(variables, attrs=contents["attributes"]))


Model.to_xarray = _to_xarray  # noqa: F405 (Model comes from the star import)

__all__ = [name for name in dir(_earth) if not name.startswith("_")]
