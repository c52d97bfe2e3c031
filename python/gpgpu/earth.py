"""gpgpu.earth: the shallow-water model from Python (the extension's gpgpu._gpgpu.earth, whose
docstring help(gpgpu.earth) shows), and Model.to_xarray, defined here."""

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

__doc__ = _earth.__doc__
__all__ = [name for name in dir(_earth) if not name.startswith("_")]
