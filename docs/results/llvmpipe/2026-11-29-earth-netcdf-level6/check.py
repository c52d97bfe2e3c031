# The file opens with xarray, and its last h equals the model's final field (the same run's
# --save file: Model::fields().height, float64) bit for bit.
import numpy as np
import xarray as xr

ds = xr.open_dataset("out.nc")
h = ds.h.isel(time=-1).values
saved = np.fromfile("run/height_case5_level6_day15.bin", dtype=np.float64, offset=40)
print("records", ds.sizes["time"], "cells", ds.sizes["nmesh_face"], "last time", ds.time.values[-1])
print("h == the model's field, bit for bit:", np.array_equal(h.view(np.uint64), saved.view(np.uint64)))
