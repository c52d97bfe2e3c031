#!/usr/bin/env python3
"""Writes the seed files of the .npy fuzzing corpus (tests/fuzz/corpus/npy).

Needs NumPy (Debian: python3-numpy). Run from anywhere:
    python3 tests/fuzz/make_npy_seeds.py [output-dir]

- numpy-*.npy: written by NumPy itself, every supported dtype x format version x shape.
  Element i of the flattened array is set by the formulas in VALUES; tests/npy_test.cpp
  checks the parsed contents against the same formulas, so these files test our reader
  against an independent writer.
- spelling-*.npy: valid files whose headers NumPy would not write but does read (other
  byte-order marks, double quotes, key order, Python 2 longs, odd whitespace).
- bad-*.npy: malformed or unsupported files, one defect each.
The fuzzer adds its own finds (hash-named files) on top; see tests/fuzz/CMakeLists.txt.
"""
import io
import pathlib
import struct
import sys

import numpy as np
import numpy.lib.format as npformat

VALUES = {
    np.float32: lambda i: ((i % 97) * 0.5 - 20.25),
    np.int32: lambda i: ((i % 97) * 7919 - 300000),
    np.uint32: lambda i: (4000000000 - (i % 97) * 7919),
}
SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4), (1, 1, 1, 1)]
VERSIONS = [(1, 0), (2, 0), (3, 0)]
CODES = {np.float32: "f4", np.int32: "i4", np.uint32: "u4"}


def numpy_array(dtype, shape):
    count = int(np.prod(shape, dtype=np.int64))
    flat = np.array([VALUES[dtype](i) for i in range(count)], dtype=np.float64)
    return flat.astype(dtype).reshape(shape)


def numpy_bytes(array, version):
    buffer = io.BytesIO()
    npformat.write_array(buffer, array, version=version)
    return buffer.getvalue()


def forge(header, data=b"", version=(1, 0)):
    """A file around a hand-written header, with no padding."""
    header = header.encode("latin1")
    length = struct.pack("<H" if version[0] == 1 else "<I", len(header))
    return b"\x93NUMPY" + bytes(version) + length + header + data


def main():
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else
                       pathlib.Path(__file__).parent / "corpus" / "npy")
    out.mkdir(parents=True, exist_ok=True)
    files = {}
    for dtype, code in CODES.items():
        for version in VERSIONS:
            for shape in SHAPES:
                dims = "x".join(map(str, shape)) or "scalar"
                name = f"numpy-{code}-v{version[0]}.{version[1]}-{dims}.npy"
                files[name] = numpy_bytes(numpy_array(dtype, shape), version)

    data24 = bytes(range(1, 25))
    good = "'fortran_order': False, 'shape': (6,)"
    files.update({
        "spelling-native-order.npy": forge("{'descr': '=f4', " + good + "}", data24),
        "spelling-not-applicable-order.npy": forge("{'descr': '|i4', " + good + "}", data24),
        "spelling-no-order.npy": forge("{'descr': 'u4', " + good + "}", data24),
        "spelling-double-quotes.npy": forge(
            '{"descr": "<f4", "fortran_order": False, "shape": (2, 3)}', data24),
        "spelling-key-order.npy": forge(
            "{'shape': (3, 2), 'fortran_order': False, 'descr': '<i4', }\n", data24),
        "spelling-python2-long.npy": forge(
            "{'descr': '<u4', 'fortran_order': False, 'shape': (2L, 3L), }", data24),
        "spelling-whitespace.npy": forge(
            " \t{ 'descr' :'<f4' ,\n'fortran_order':False,'shape' : ( 6 , ) , }\n\n ", data24),
        "spelling-v2-unpadded.npy": forge(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (6,)}", data24, (2, 0)),
    })

    ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }\n"
    data48 = bytes(range(7, 55))
    files.update({
        "bad-empty.npy": b"",
        "bad-magic.npy": b"\x93NUMPZ\x01\x00\x10\x00" + ok.encode(),
        "bad-only-magic.npy": b"\x93NUMPY",
        "bad-version-4.npy": forge(ok, data48, (4, 0)),
        "bad-version-1.1.npy": forge(ok, data48, (1, 1)),
        "bad-v2-preamble-cut.npy": b"\x93NUMPY\x02\x00\x10\x00",
        "bad-header-cut.npy": forge(ok, data48)[:40],
        "bad-header-4gib.npy": b"\x93NUMPY\x02\x00\xff\xff\xff\xff{",
        "bad-not-dict.npy": forge("['descr', '<f4']\n"),
        "bad-missing-shape.npy": forge("{'descr': '<f4', 'fortran_order': False}"),
        "bad-unknown-key.npy": forge(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}", data48[:4]),
        "bad-duplicate-key.npy": forge(
            "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}", data48[:4]),
        "bad-float64.npy": numpy_bytes(np.arange(1.5, 7.5, dtype=np.float64), (1, 0)),
        "bad-int64.npy": numpy_bytes(np.arange(1, 7, dtype=np.int64), (1, 0)),
        "bad-uint8.npy": numpy_bytes(np.arange(1, 7, dtype=np.uint8), (1, 0)),
        "bad-bool.npy": numpy_bytes(np.array([True, False, True]), (1, 0)),
        "bad-float16.npy": numpy_bytes(np.arange(1, 7, dtype=np.float16), (1, 0)),
        "bad-big-endian.npy": numpy_bytes(np.arange(1, 7, dtype=">f4"), (1, 0)),
        "bad-fortran-order.npy": numpy_bytes(
            np.asfortranarray(numpy_array(np.float32, (3, 4))), (1, 0)),
        "bad-structured.npy": numpy_bytes(
            np.array([(1.5, 2), (3.5, 4)], dtype=[("x", "<f4"), ("y", "<i4")]), (1, 0)),
        "bad-unicode.npy": numpy_bytes(np.array(["ab", "cd"]), (1, 0)),
        "bad-shape-int.npy": forge("{'descr': '<f4', 'fortran_order': False, 'shape': (5)}",
                                   data48[:20]),
        "bad-shape-negative.npy": forge(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}"),
        "bad-shape-too-large.npy": forge(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}"),
        "bad-shape-overflow.npy": forge(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}"),
        "bad-huge-shape-tiny-file.npy": forge(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,)}", data48[:8]),
        "bad-data-short.npy": numpy_bytes(numpy_array(np.float32, (3, 4)), (1, 0))[:-8],
        "bad-data-long.npy": numpy_bytes(numpy_array(np.float32, (3, 4)), (1, 0)) + b"\x01\x02",
        "bad-65-dimensions.npy": forge(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (" + "1, " * 65 + "), }",
            data48[:4]),
        "bad-unterminated-string.npy": forge("{'descr"),
        "bad-escape.npy": forge("{'de\\scr': '<f4'}"),
        "bad-bool-typo.npy": forge(
            "{'descr': '<f4', 'fortran_order': Flase, 'shape': (3, 4), }", data48),
        "bad-text-after-dict.npy": forge(
            "{'descr': '<f4', 'fortran_order': False, 'shape': ()} junk", data48[:4]),
        "bad-missing-comma.npy": forge(
            "{'descr': '<f4' 'fortran_order': False, 'shape': ()}", data48[:4]),
        "bad-binary-header.npy": forge("{\x01\xff"),
        "bad-utf8-v3-key.npy": forge("{'d\u00e9scr': '<f4'}".encode("utf8").decode("latin1"),
                                     data48[:4], (3, 0)),
    })
    for name, content in files.items():
        (out / name).write_bytes(content)
    print(f"wrote {len(files)} seed files to {out}")


if __name__ == "__main__":
    main()
