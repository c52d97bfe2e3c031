"""The wheel's build step: CMake builds the extension gpgpu._gpgpu, setuptools packs it.

pyproject.toml has the metadata; this file adds what it cannot say: the version, read from
CMakeLists.txt's project(gpgpu VERSION ...) so that the wheel and the C++ packages agree, and
a build_ext that runs CMake instead of compiling sources itself.

Where the extension is built:
  GPGPU_CMAKE_BUILD_DIR set   an existing build of this tree with the Python module for this
                              interpreter (scripts/package.sh's): only its gpgpu_python
                              target is brought up to date, so nothing is compiled twice.
  otherwise                   a fresh build under setuptools' build_temp with only the
                              library and the module (no tests, tools, examples, benchmarks);
                              CMAKE_ARGS adds configure arguments, CMAKE_BUILD_PARALLEL_LEVEL
                              sets the jobs (CMake's own variables).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"project\(\s*gpgpu\s+VERSION\s+([0-9][0-9.]*)", text)
    if match is None:
        raise RuntimeError(f"{ROOT / 'CMakeLists.txt'}: no 'project(gpgpu VERSION x.y.z' found")
    return match.group(1)


class CMakeExtension(Extension):
    """An extension CMake builds: setuptools compiles no sources of its own."""

    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        given = os.environ.get("GPGPU_CMAKE_BUILD_DIR")
        build_dir = Path(given).resolve() if given else Path(self.build_temp).resolve() / "cmake"
        if given:
            self.check_configured(build_dir)
        else:
            self.configure(build_dir)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "gpgpu_python"],
                       check=True)
        # The module's file name carries the interpreter's ABI tag, so a build made for
        # another Python is refused here rather than failing at import.
        name = "_gpgpu" + sysconfig.get_config_var("EXT_SUFFIX")
        built = build_dir / "python" / "gpgpu" / name
        if not built.is_file():
            found = sorted(p.name for p in (build_dir / "python" / "gpgpu").glob("_gpgpu*"))
            raise RuntimeError(f"{built} was not built: this interpreter ({sys.executable}) "
                               f"needs {name}, the build has {found or 'none'} (configure it "
                               f"with -DPython3_EXECUTABLE={sys.executable})")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)

    def check_configured(self, build_dir):
        cache = build_dir / "CMakeCache.txt"
        if not cache.is_file():
            raise RuntimeError(f"GPGPU_CMAKE_BUILD_DIR={build_dir}: no CMakeCache.txt there "
                               "(configure it first, or unset it for a fresh build)")
        if not re.search(r"^GPGPU_PYTHON:BOOL=ON$", cache.read_text(), re.MULTILINE):
            raise RuntimeError(f"GPGPU_CMAKE_BUILD_DIR={build_dir} was configured without the "
                               "Python module (GPGPU_PYTHON is not ON)")

    def configure(self, build_dir):
        args = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                f"-DPython3_EXECUTABLE={sys.executable}", "-DGPGPU_PYTHON=ON",
                "-DGPGPU_BUILD_TESTS=OFF", "-DGPGPU_BUILD_TOOLS=OFF",
                "-DGPGPU_BUILD_EXAMPLES=OFF", "-DGPGPU_BUILD_BENCH=OFF", "-DGPGPU_CUDA=OFF"]
        if shutil.which("ninja") and not (build_dir / "CMakeCache.txt").exists():
            args += ["-G", "Ninja"]
        args += shlex.split(os.environ.get("CMAKE_ARGS", ""))
        subprocess.run(args, check=True)


setup(version=project_version(),
      ext_modules=[CMakeExtension("gpgpu._gpgpu")],
      cmdclass={"build_ext": CMakeBuild})
