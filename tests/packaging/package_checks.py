"""The parts of tests/packaging/test-packages.sh that are easier in Python.

  owners PATH...              the Debian package of each file ("package path" lines); fails
                              naming any file no package owns
  wheel WHEEL VERSION         checks a wheel's name, METADATA, files and the extension's links
  readme-example README OUT   writes the README's Python example to OUT and prints the
                              output the README says it prints
  saxpy-inputs DIR            writes random float32 x.npy, y.npy and a NaN y2.npy into DIR
                              and prints a random float32 alpha
  saxpy-check DIR ALPHA       checks DIR/y2.npy against y + alpha x in float64
  drop-depends CONTROL NAME   removes NAME from a DEBIAN/control file's Depends
  break-wheel WHEEL OUT_DIR   writes a copy of WHEEL without Requires-Dist: numpy
Every failure exits 1 with a line starting "FAIL:".
"""
import email
import os
import re
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# What the wheel's extension may link: the C/C++ runtimes, and EGL, OpenGL (glvnd's dispatch),
# fmt, zlib, OpenBLAS, ONNX (with protobuf) and NetCDF, whose packages the README's install
# section names as what the wheel needs from apt (pip cannot install them): a new link fails
# here until the README says so.
WHEEL_LIBRARIES = re.compile(
    r"lib(c|m|gcc_s|stdc\+\+|EGL|OpenGL|GLESv2|fmt|z|openblas|onnx|onnx_proto|protobuf|netcdf)"
    r"\.so\.[0-9]+|ld-linux-[\w-]+\.so\.[0-9]+")


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def owners(paths):
    """Each path's package through dpkg -S (one call for all), trying the /usr-merged twin
    of the paths no package lists as given."""
    def query(candidates):
        result = subprocess.run(["dpkg", "-S", *candidates], capture_output=True, text=True)
        found = {}
        for line in result.stdout.splitlines():
            if line.startswith("diversion "):
                continue
            packages, _, path = line.partition(": ")
            found[path] = packages.split(",")[0].split(":")[0].strip()
        return found

    def twin(path):
        return path[len("/usr"):] if path.startswith("/usr/lib/") else "/usr" + path

    found = query(paths)
    missing = [p for p in paths if p not in found]
    if missing:
        twins = query([twin(p) for p in missing])
        for path in missing:
            if twin(path) in twins:
                found[path] = twins[twin(path)]
            else:
                found[path] = alternative_owner(path, query)
    for path in sorted(paths):
        print(found[path], path)


def alternative_owner(path, query):
    """The package a program linking PATH depends on, where PATH is a link that
    update-alternatives manages (libopenblas.so.0 -> /etc/alternatives -> one flavour): as
    dpkg-shlibdeps decides, the shlibs entry for PATH's soname of the package that owns the
    file the link ends at (OpenBLAS's flavours all name libopenblas0), else that package."""
    target = os.path.realpath(path)
    owner = query([target]).get(target)
    if owner is None:
        fail(f"no Debian package owns {path} (nor {target}, where it leads)")
    match = re.fullmatch(r"(.+)\.so\.(\S+)", os.path.basename(path))
    info = Path("/var/lib/dpkg/info")
    files = [*info.glob(f"{owner}.shlibs"), *info.glob(f"{owner}:*.shlibs")] if match else []
    for shlibs in files:
        for line in shlibs.read_text().splitlines():
            fields = line.split(None, 2)
            if len(fields) == 3 and fields[:2] == [match[1], match[2]]:
                return fields[2].split("|")[0].split("(")[0].strip()
    return owner


def needed_libraries(elf):
    dump = subprocess.run(["objdump", "-p", elf], capture_output=True, text=True, check=True)
    return re.findall(r"^\s*NEEDED\s+(\S+)", dump.stdout, re.MULTILINE)


def wheel(path, version):
    path = Path(path)
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    if not re.fullmatch(rf"gpgpu-{re.escape(version)}-{tag}-{tag}-linux_\w+\.whl", path.name):
        fail(f"{path.name}: expected gpgpu-{version}-{tag}-{tag}-linux_<arch>.whl")
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        info = f"gpgpu-{version}.dist-info"
        if f"{info}/METADATA" not in names:
            fail(f"{path.name}: no {info}/METADATA (the version inside differs?)")
        metadata = email.message_from_bytes(archive.read(f"{info}/METADATA"))
        if metadata["Name"] != "gpgpu" or metadata["Version"] != version:
            fail(f"{path.name}: METADATA says {metadata['Name']} {metadata['Version']}, "
                 f"expected gpgpu {version}")
        requires = [re.split(r"[ ;<>=!~(\[]", r)[0] for r in metadata.get_all("Requires-Dist", [])]
        if "numpy" not in requires:
            fail(f"{path.name}: METADATA does not require numpy (Requires-Dist: {requires})")
        if "Root-Is-Purelib: false" not in archive.read(f"{info}/WHEEL").decode():
            fail(f"{path.name}: not marked platform-specific (Root-Is-Purelib: false)")
        extension = "gpgpu/_gpgpu" + sysconfig.get_config_var("EXT_SUFFIX")
        sources = sorted(f"gpgpu/{p.name}" for p in (ROOT / "python/gpgpu").glob("*.py"))
        missing = [n for n in sources + [extension] if n not in names]
        if missing:
            fail(f"{path.name}: lacks {', '.join(missing)}")
        unpacked = Path(os.environ.get("TMPDIR", "/tmp")) / f"gpgpu-wheel-check-{os.getpid()}.so"
        unpacked.write_bytes(archive.read(extension))
    try:
        links = needed_libraries(unpacked)
    finally:
        unpacked.unlink()
    unexpected = [l for l in links if not WHEEL_LIBRARIES.fullmatch(l)]
    if unexpected:
        fail(f"{path.name}: the extension links {unexpected}, which the README's install "
             "section does not name")
    print(f"ok: {path.name}: gpgpu {version}, requires numpy, {len(names)} files, "
          f"links {' '.join(links)}")


def readme_example(readme, out):
    text = Path(readme).read_text()
    section = re.search(r"^## Python in 10 lines\n(.*?)^## ", text, re.MULTILINE | re.DOTALL)
    if section is None:
        fail(f"{readme}: no '## Python in 10 lines' section")
    code = re.search(r"```python\n(.*?)```", section.group(1), re.DOTALL)
    prints = re.search(r"prints `([^`]*)`", section.group(1))
    if code is None or prints is None:
        fail(f"{readme}: the Python section lacks its ```python block or its 'prints `...`'")
    Path(out).write_text(code.group(1))
    print(prints.group(1))


def saxpy_inputs(folder):
    import numpy as np

    rng = np.random.default_rng()
    n = int(rng.integers(1000, 5000))
    np.save(f"{folder}/x.npy", rng.uniform(-2, 2, n).astype(np.float32))
    np.save(f"{folder}/y.npy", rng.uniform(-2, 2, n).astype(np.float32))
    np.save(f"{folder}/y2.npy", np.full(n, np.nan, np.float32))  # poison: must be replaced
    print(repr(float(np.float32(rng.uniform(0.5, 3)))))  # exact as float32 and in decimal


def saxpy_check(folder, alpha):
    import numpy as np

    x, y = (np.load(f"{folder}/{n}.npy").astype(np.float64) for n in ("x", "y"))
    got = np.load(f"{folder}/y2.npy")
    if got.dtype != np.float32 or got.shape != y.shape:
        fail(f"y2.npy is {got.dtype} {got.shape}, expected float32 {y.shape}")
    ax = float(alpha) * x
    # alpha x + y in float32: one rounding of the product and one of the sum (or a single
    # one if fused), each at most 2^-24 of its magnitude: |error| <= 2^-23 (|alpha x| + |y|).
    bound = 2.0**-23 * (np.abs(ax) + np.abs(y))
    bad = np.flatnonzero(~(np.abs(got - (ax + y)) <= bound))
    if bad.size:
        i = bad[0]
        fail(f"gpgpu run: y2[{i}] = {got[i]!r}, expected {ax[i] + y[i]!r} ({bad.size} wrong)")
    print(f"ok: gpgpu run: all {got.size} elements of alpha x + y within 2^-23 (|alpha x| + |y|)")


def drop_depends(control, name):
    text = Path(control).read_text()
    line = re.search(r"^Depends: (.*)$", text, re.MULTILINE)
    kept = [d for d in line.group(1).split(", ") if d.split()[0] != name]
    Path(control).write_text(text.replace(line.group(0), "Depends: " + ", ".join(kept)))


def break_wheel(path, out_dir):
    path = Path(path)
    out = Path(out_dir) / path.name
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename.endswith(".dist-info/METADATA"):
                data = re.sub(rb"^Requires-Dist: numpy.*\n", b"", data, flags=re.MULTILINE)
            target.writestr(item, data)
    print(out)


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    {"owners": lambda: owners(args),
     "wheel": lambda: wheel(*args),
     "readme-example": lambda: readme_example(*args),
     "saxpy-inputs": lambda: saxpy_inputs(*args),
     "saxpy-check": lambda: saxpy_check(*args),
     "drop-depends": lambda: drop_depends(*args),
     "break-wheel": lambda: break_wheel(*args)}[command]()
