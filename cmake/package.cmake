# Debian packages of gpgpu, made by CPack from one Release build (scripts/package.sh):
#   libgpgpu-dev   install component "dev": headers, static libraries, the CMake package
#   gpgpu-tools    install component "tools": the gpgpu command and its man page
#   python3-gpgpu  install component "python": the Python module, when it is built for a
#                  relative GPGPU_PYTHON_INSTALL_DIR (lib/python3/dist-packages, Debian's)
# Every version is the project's (project(gpgpu VERSION ...)). The shared libraries that the
# programs link are found by dpkg-shlibdeps; the rest is stated here: what they open at run
# time (Mesa's EGL and llvmpipe; OpenBLAS) and what a static library's users link against
# (the -dev packages behind cmake/gpgpuConfig.cmake.in's find_dependency calls).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gpgpu)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the gpgpu project")
set(GPGPU_PACKAGE_MAINTAINER
    "gpgpu maintainers <maintainers@users.noreply.a-seed-1036a5e8.example>"
    CACHE STRING "The Maintainer field of the Debian packages")
set(CPACK_PACKAGE_CONTACT "${GPGPU_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <package>_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Programs run on any GPU's EGL driver, and on the CPU through Mesa's EGL and llvmpipe (the
# DRI drivers), which libegl1 alone does not bring.
set(gpgpu_driver_depends "libegl-mesa0, libgl1-mesa-dri")
# The host BLAS is dlopened for matmul on CPU devices (src/matmul/host_blas.cpp): without it
# MatmulMethod::Auto uses the shader methods instead (correct, 10-25x slower on llvmpipe), so
# it is recommended, not required.
set(gpgpu_runtime_recommends "libopenblas0")

set(CPACK_COMPONENTS_ALL dev)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libgpgpu-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
string(CONCAT CPACK_COMPONENT_DEV_DESCRIPTION
  "Development files: headers, static libraries (gpgpu, gpgpu::nn, gpgpu::earth,\n"
  "gpgpu::earth_netcdf) and the CMake package (find_package(gpgpu), target gpgpu::gpgpu).\n"
  "gpgpu runs GLSL kernels over\n"
  "host arrays on any OpenGL ES 3.1+ GPU through EGL, and on the CPU through Mesa's\n"
  "llvmpipe.")
# What find_package(gpgpu) and the static libraries' links need (gpgpuConfig.cmake.in):
# EGL (whose CMake target brings glvnd's libOpenGL) and GLESv2, fmt, zlib (gpgpu::nn),
# libpng (gpgpu::earth links it by path). tests/packaging checks this list against the
# files a consumer's build really takes from the system.
set(gpgpu_dev_depends libegl-dev libopengl-dev libgles-dev libfmt-dev zlib1g-dev libpng-dev)
if(TARGET gpgpu_mpi)
  list(APPEND gpgpu_dev_depends mpi-default-dev)
endif()
# gpgpu::earth_netcdf (where the build found libnetcdf): find_dependency(netCDF) reads its
# CMake package.
if(TARGET gpgpu_earth_netcdf)
  list(APPEND gpgpu_dev_depends libnetcdf-dev)
endif()
# gpgpu::nn links OpenBLAS by the full path of the flavour found at build time (cmake/
# openblas.cmake), so its users need that flavour's -dev package: Debian installs each
# under /usr/lib/<multiarch>/openblas-<flavour>/.
get_property(gpgpu_openblas GLOBAL PROPERTY GPGPU_OPENBLAS_LIBRARIES)
if(gpgpu_openblas MATCHES "/openblas-(pthread|openmp|serial)/")
  list(APPEND gpgpu_dev_depends libopenblas-${CMAKE_MATCH_1}-dev)
elseif(gpgpu_openblas)
  list(APPEND gpgpu_dev_depends libopenblas-dev)
endif()
list(JOIN gpgpu_dev_depends ", " CPACK_DEBIAN_DEV_PACKAGE_DEPENDS)
set(CPACK_DEBIAN_DEV_PACKAGE_RECOMMENDS "${gpgpu_driver_depends}, ${gpgpu_runtime_recommends}")
set(CPACK_DEBIAN_DEV_PACKAGE_SUGGESTS "cmake, gpgpu-tools")

if(TARGET gpgpu_cli)
  list(APPEND CPACK_COMPONENTS_ALL tools)
  set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME gpgpu-tools)
  string(CONCAT CPACK_COMPONENT_TOOLS_DESCRIPTION
    "The gpgpu command: gpgpu info lists EGL devices and limits; gpgpu run binds .npy\n"
    "files to a GLSL kernel's variables by name; reduce, scan, sort, histogram, train,\n"
    "predict and earth run the library's primitives, networks and shallow-water model.\n"
    "Runs on the CPU through Mesa's llvmpipe when there is no GPU.")
  set(CPACK_DEBIAN_TOOLS_PACKAGE_SHLIBDEPS ON)
  set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "${gpgpu_driver_depends}")
  set(CPACK_DEBIAN_TOOLS_PACKAGE_RECOMMENDS "${gpgpu_runtime_recommends}")
  # `gpgpu plot`-style pictures are drawn through gnuplot when it is there.
  set(CPACK_DEBIAN_TOOLS_PACKAGE_SUGGESTS "gnuplot-nox")
endif()

if(TARGET gpgpu_python AND NOT IS_ABSOLUTE "${GPGPU_PYTHON_INSTALL_DIR}")
  list(APPEND CPACK_COMPONENTS_ALL python)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-gpgpu)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
  string(CONCAT CPACK_COMPONENT_PYTHON_DESCRIPTION
    "The Python module: import gpgpu runs GLSL kernels over NumPy arrays bound by name,\n"
    "on any OpenGL ES 3.1+ GPU or on the CPU through Mesa's llvmpipe; gpgpu.nn trains and\n"
    "runs networks and gpgpu.earth the shallow-water model from NumPy arrays.")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SHLIBDEPS ON)
  # The extension is built for one interpreter version (its ABI tag names it).
  get_target_property(gpgpu_python_version gpgpu_python GPGPU_PYTHON_VERSION)
  string(REPLACE "." ";" gpgpu_python_parts ${gpgpu_python_version})
  list(GET gpgpu_python_parts 0 gpgpu_python_major)
  list(GET gpgpu_python_parts 1 gpgpu_python_minor)
  math(EXPR gpgpu_python_next "${gpgpu_python_minor} + 1")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS
      "python3 (>= ${gpgpu_python_version}), python3 (<< ${gpgpu_python_major}.${gpgpu_python_next}), python3-numpy, ${gpgpu_driver_depends}")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_RECOMMENDS "${gpgpu_runtime_recommends}")
endif()

include(CPack)
