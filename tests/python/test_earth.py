"""gpgpu.earth from Python: the grid's arrays (ranges, counts, symmetry, areas), the model's
fields against the C++ command-line tool's saved field (bit for bit), u and v against a float64
reference, diagnostics, to_xarray against the NetCDF file, restarts, and bad input."""

import os
import subprocess

import numpy as np
import pytest

import gpgpu
import gpgpu.earth as earth

CLI = os.environ.get("GPGPU_CLI")
EPS64 = 2.0**-53


@pytest.fixture(scope="module", autouse=True)
def _earth_runs_here(earth_fits):
    """Every test below needs the model on this device (conftest.earth_fits)."""


@pytest.fixture(scope="module")
def grid3():
    return earth.Grid(3, device="cpu")


def test_grid_arrays_describe_the_icosahedral_grid(grid3):
    g = grid3
    n = earth.cell_count(3)
    assert g.cell_count == n == 642 and g.vertex_count == 20 * 4**3
    assert g.lat.shape == (n,) and np.all(np.abs(g.lat) <= 90)
    assert np.all((g.lon >= -180) & (g.lon <= 180))
    assert np.all(np.abs(g.vertex_lat) <= 90) and np.all(np.abs(g.vertex_lon) <= 180)
    # lat/lon are the centres' unit vectors in degrees (float64: within a few eps64 of 90).
    c = g.centres.astype(np.float64)
    assert np.allclose(np.linalg.norm(c, axis=1), 1, atol=8 * EPS64)
    assert np.allclose(g.lat, np.degrees(np.arctan2(c[:, 2], np.hypot(c[:, 0], c[:, 1]))),
                       atol=64 * EPS64 * 180)
    assert (g.degree == 5).sum() == 12 and (g.degree == 6).sum() == n - 12
    # Neighbours: -1 exactly past the degree, and symmetric.
    nb = g.neighbours
    assert np.all((nb[:, 5] == -1) == (g.degree == 5))
    for i in range(n):
        for j in nb[i, :g.degree[i]]:
            assert i in nb[j, :g.degree[j]]
    fv = g.face_vertices
    assert np.all((fv[:, 5] == -1) == (g.degree == 5))
    assert fv.max() == g.vertex_count - 1
    # Control volumes tile the unit sphere: areas sum to 4 pi within float64 rounding of n terms.
    assert g.areas.sum() == pytest.approx(4 * np.pi, rel=n * EPS64)
    # Views of the grid's memory are read-only (the grid is shared with models).
    for a in (g.centres, g.neighbours, g.areas, g.degree, g.vertices, g.triangles):
        assert not a.flags.writeable
    with pytest.raises(ValueError):
        g.areas[0] = 1
    stats = g.statistics()
    assert stats["pentagons"] == 12 and stats["neighbours_symmetric"]


def test_fields_equal_the_command_line_tools_bit_for_bit(ctx, tmp_path):
    if CLI is None:
        pytest.skip("GPGPU_CLI is not set (the ctest entry sets it)")
    run = subprocess.run([CLI, "earth", "--case", "2", "--level", "3", "--days", "0.5", "--save",
                          "--no-pictures", "--out", str(tmp_path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    saved = np.fromfile(tmp_path / "height_case2_level3_day0.5.bin", dtype=np.float64, offset=40)
    model = earth.Model(case=2, level=3, ctx=ctx)
    model.advance(days=0.5)
    h = model.h
    assert h.shape == saved.shape
    assert np.array_equal(h.view(np.uint64), saved.view(np.uint64))


def test_u_and_v_are_the_velocity_along_east_and_north(ctx, grid3):
    model = earth.Model(case=6, grid=grid3, ctx=ctx)
    model.step(4)
    f = model.fields()
    p = grid3.centres
    horizontal = np.hypot(p[:, 0], p[:, 1])
    pole = horizontal == 0
    east = np.where(pole[:, None], [0.0, 1.0, 0.0],
                    np.stack([-p[:, 1], p[:, 0], np.zeros(len(p))], axis=1) /
                    np.where(pole, 1, horizontal)[:, None])
    north = np.cross(p, east)
    speed = np.linalg.norm(f["velocity"], axis=1)
    # Two float64 formulas for the same projection: within ~16 eps64 of the speed.
    bound = 16 * EPS64 * speed + 1e-300
    assert np.all(np.abs(f["u"] - (f["velocity"] * east).sum(axis=1)) <= bound)
    assert np.all(np.abs(f["v"] - (f["velocity"] * north).sum(axis=1)) <= bound)
    # The velocity is tangent to the sphere (float32 state: within a few eps32 of the speed).
    assert np.all(np.abs((f["velocity"] * p).sum(axis=1)) <= 8 * 2.0**-24 * speed + 1e-12)
    assert np.array_equal(f["h"], model.h)


def test_case_2_stays_near_its_exact_solution(ctx, grid3):
    model = earth.Model(case=2, grid=grid3, ctx=ctx)
    assert model.case == 2 and model.case_days == 5
    model.advance(days=1)
    d = model.diagnostics()
    assert d["days"] == pytest.approx(1.0, rel=1e-12)
    # Level 3's error after a day is of order 1e-3 (docs/earth.md); mass is conserved to
    # float32 rounding of the depth's deviation.
    assert 0 < d["errors"]["l2"] < 1e-2
    assert abs(d["drift"]["mass"]) < 1e-6
    exact = model.analytic_h()
    assert np.max(np.abs(model.h - exact)) / np.max(exact) == pytest.approx(d["errors"]["linf"])


def test_to_xarray_is_the_netcdf_file(ctx, grid3, tmp_path):
    xr = pytest.importorskip("xarray")
    if not earth.netcdf_available:
        pytest.skip("built without libnetcdf")
    model = earth.Model(case=5, grid=grid3, ctx=ctx)
    model.advance(seconds=7200)
    path = tmp_path / "state.nc"
    model.to_netcdf(str(path))
    ds = model.to_xarray()
    with xr.open_dataset(path) as f:
        assert set(ds.variables) == set(f.variables)
        # The same global attributes, but for `history`, which names the call that made each.
        assert {k: v for k, v in ds.attrs.items() if k != "history"} == \
            {k: v for k, v in f.attrs.items() if k != "history"}
        assert ds.attrs["history"] == "gpgpu.earth.Model.to_xarray"
        for name in f.variables:
            assert ds[name].attrs == f[name].attrs, name
            assert ds[name].dims == f[name].dims, name
            assert np.array_equal(ds[name].values, f[name].values, equal_nan=True), name
    h = ds.h.isel(time=0).values
    assert np.array_equal(h.view(np.uint64), model.h.view(np.uint64))
    assert np.array_equal(ds.mesh_face_y.values, grid3.lat)


def test_a_model_restarts_from_a_file(ctx, grid3, tmp_path):
    if not earth.netcdf_available:
        pytest.skip("built without libnetcdf")
    model = earth.Model(case=6, grid=grid3, ctx=ctx)
    path = tmp_path / "run.nc"
    with model.netcdf_writer(str(path)) as out:
        out.write()
        model.advance(seconds=3600)
        out.write()
        assert out.records == 2
    again = earth.Model(case=6, grid=grid3, ctx=ctx)
    info = again.load_netcdf(str(path))
    assert info["record"] == 1 and info["records"] == 2
    assert again.time == pytest.approx(model.time, rel=1e-15)
    assert np.array_equal(again.h.view(np.uint64), model.h.view(np.uint64))
    assert np.array_equal(again.velocity, model.velocity)
    # Another case, or another level, is refused by name.
    with pytest.raises(gpgpu.ArgumentError, match="holds case 6"):
        earth.Model(case=2, grid=grid3, ctx=ctx).load_netcdf(str(path))
    with pytest.raises(gpgpu.ArgumentError, match="level-3 grid; this run's grid is level 2"):
        earth.Model(case=6, level=2, ctx=ctx).load_netcdf(str(path))
    # An exception inside the block leaves no file behind.
    with pytest.raises(RuntimeError):
        with model.netcdf_writer(str(tmp_path / "broken.nc")) as out:
            out.write()
            raise RuntimeError("stop")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.nc"]


def test_bad_input_is_refused_by_name(ctx, grid3):
    with pytest.raises(gpgpu.ArgumentError, match="3"):
        earth.Model(case=3, grid=grid3, ctx=ctx)
    with pytest.raises(gpgpu.ArgumentError, match="level 4 was asked for"):
        earth.Model(case=2, level=4, grid=grid3, ctx=ctx)
    with pytest.raises(gpgpu.ArgumentError):
        earth.Grid(12)
    model = earth.Model(case=2, grid=grid3, ctx=ctx)
    with pytest.raises(gpgpu.ArgumentError, match="positive time"):
        model.advance(days=-1)
    with pytest.raises(gpgpu.SizeMismatchError, match=r"\(642,\)"):
        model.set_fields(np.zeros(10), np.zeros((642, 3)))
    with pytest.raises(gpgpu.ArgumentError):
        earth.Model(case=5, grid=grid3, ctx=ctx).analytic_h()  # case 5 has no exact solution
