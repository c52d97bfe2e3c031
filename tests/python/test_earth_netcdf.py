"""`gpgpu earth --netcdf` files read back with the netCDF4 and xarray packages: the UGRID mesh
variables and their attributes, the CF attributes, the data against the same run in Python (bit
for bit: the same steps on the same device), the last h against the run's --save field, and
`ncdump -h` on the file."""

import os
import shutil
import subprocess

import numpy as np
import pytest

import gpgpu.earth as earth

CLI = os.environ.get("GPGPU_CLI")
netCDF4 = pytest.importorskip("netCDF4")
xr = pytest.importorskip("xarray")

pytestmark = pytest.mark.skipif(CLI is None or not earth.netcdf_available,
                                reason="needs GPGPU_CLI (set by the ctest entry) and libnetcdf")


@pytest.fixture(scope="module", autouse=True)
def _earth_runs_here(earth_fits):
    """Every test below needs the model on this device (conftest.earth_fits)."""


@pytest.fixture(scope="module")
def case5(tmp_path_factory):
    """Case 5 at level 4 for a day, a record every 6 hours, and the final height saved."""
    out = tmp_path_factory.mktemp("case5")
    path = out / "case5.nc"
    run = subprocess.run([CLI, "earth", "--case", "5", "--level", "4", "--days", "1",
                          "--netcdf", str(path), "--netcdf-every", "6", "--save",
                          "--no-pictures", "--out", str(out)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    return path, out / "height_case5_level4_day1.bin"


def test_ugrid_mesh_and_cf_attributes(case5):
    path, _ = case5
    with netCDF4.Dataset(path) as f:
        assert f.Conventions == "CF-1.8 UGRID-1.0"
        mesh = f["mesh"]
        assert mesh.cf_role == "mesh_topology" and mesh.topology_dimension == 2
        assert mesh.node_coordinates == "mesh_node_x mesh_node_y"
        assert mesh.face_coordinates == "mesh_face_x mesh_face_y"
        assert mesh.face_node_connectivity == "mesh_face_nodes"
        assert mesh.face_face_connectivity == "mesh_face_links"
        n, nodes = f.dimensions["nmesh_face"].size, f.dimensions["nmesh_node"].size
        assert n == earth.cell_count(4) and nodes == 20 * 4**4
        assert f.dimensions["time"].isunlimited() and f.dimensions["time"].size == 5
        faces = f["mesh_face_nodes"]
        assert faces.cf_role == "face_node_connectivity" and faces.start_index == 0
        assert faces._FillValue == -1
        connectivity = faces[:]  # masked where the fill value stands
        assert np.ma.count_masked(connectivity) == 12  # a sixth corner for each pentagon
        assert connectivity.min() == 0 and connectivity.max() == nodes - 1
        assert f["mesh_face_links"].cf_role == "face_face_connectivity"
        for name, units, standard in (("mesh_face_x", "degrees_east", "longitude"),
                                      ("mesh_face_y", "degrees_north", "latitude"),
                                      ("mesh_node_x", "degrees_east", "longitude"),
                                      ("mesh_node_y", "degrees_north", "latitude"),
                                      ("u", "m s-1", "eastward_wind"),
                                      ("v", "m s-1", "northward_wind"),
                                      ("vorticity", "s-1", "atmosphere_relative_vorticity"),
                                      ("surface_altitude", "m", "surface_altitude"),
                                      ("mesh_face_area", "m2", "cell_area")):
            assert f[name].units == units and f[name].standard_name == standard, name
        assert f["h"].units == "m" and f["h"].mesh == "mesh" and f["h"].location == "face"
        assert f["time"].units.startswith("seconds since ")
        assert np.allclose(f["time"][:], 21600.0 * np.arange(5), rtol=0, atol=1e-6)
        for name in ("h", "u", "mesh_node_x"):
            assert f[name].filters()["zlib"] and f[name].filters()["shuffle"], name


def test_data_equal_the_same_run_in_python_bit_for_bit(case5, ctx):
    path, saved_path = case5
    grid = earth.Grid(4)
    model = earth.Model(case=5, grid=grid, ctx=ctx)
    with netCDF4.Dataset(path) as f:
        assert np.array_equal(f["mesh_face_x"][:], grid.lon)
        assert np.array_equal(f["mesh_face_y"][:], grid.lat)
        assert np.array_equal(f["mesh_face_links"][:].filled(-1), grid.neighbours)
        assert np.array_equal(f["mesh_face_nodes"][:].filled(-1), grid.face_vertices)
        assert np.array_equal(f["surface_altitude"][:], model.surface)
        for record in range(5):
            if record > 0:  # to the command's stop, computed as it does: the same steps
                model.advance(days=0.25 * record - model.time / 86400)
            fields = model.fields()
            for name in ("h", "u", "v", "vorticity"):
                got = np.asarray(f[name][record, :])
                assert np.array_equal(got.view(np.uint64), fields[name].view(np.uint64)), \
                    (name, record)
            for axis, name in enumerate(("velocity_x", "velocity_y", "velocity_z")):
                assert np.array_equal(f[name][record, :],
                                      fields["velocity"][:, axis].astype(np.float32)), name
    saved = np.fromfile(saved_path, dtype=np.float64, offset=40)
    with netCDF4.Dataset(path) as f:
        last = np.asarray(f["h"][-1, :])
    assert np.array_equal(last.view(np.uint64), saved.view(np.uint64))


def test_xarray_opens_it(case5):
    path, _ = case5
    with xr.open_dataset(path) as ds:
        assert ds.h.dims == ("time", "nmesh_face")
        assert ds.h.attrs["mesh"] == "mesh"
        assert "mesh_face_x" in ds.h.coords and "mesh_face_y" in ds.h.coords
        assert ds.time.dtype.kind == "M"  # decoded as dates from "seconds since ..."
        assert float(ds.h.isel(time=-1).max()) > 5000  # case 5: a 5960 m deep layer


def test_ncdump_reads_the_header(case5):
    path, _ = case5
    ncdump = shutil.which("ncdump")
    if ncdump is None:
        pytest.skip("ncdump (Debian: netcdf-bin) is not installed")
    run = subprocess.run([ncdump, "-h", str(path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    for text in ('mesh:cf_role = "mesh_topology"',
                 'mesh_face_nodes:cf_role = "face_node_connectivity"',
                 "time = UNLIMITED", ':Conventions = "CF-1.8 UGRID-1.0"'):
        assert text in run.stdout, text
