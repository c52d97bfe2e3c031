# Installs the libraries, their headers and a CMake package so that another project can
# find_package(gpgpu) and link gpgpu::gpgpu, gpgpu::nn, gpgpu::earth. All of it is the "dev"
# install component, which becomes the libgpgpu-dev Debian package (cmake/package.cmake).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The core and gpgpu::earth (the geodesic grid and shallow-water model) always; gpgpu::nn
# (convolutional networks), gpgpu::mpi and gpgpu::earth_mpi (built only where MPI is found)
# and gpgpu::earth_netcdf (only where libnetcdf is found) when they exist.
set(gpgpu_installed_libraries gpgpu gpgpu_earth gpgpu_warnings)
foreach(optional gpgpu_nn gpgpu_mpi gpgpu_earth_mpi gpgpu_earth_netcdf)
  if(TARGET ${optional})
    list(APPEND gpgpu_installed_libraries ${optional})
  endif()
endforeach()
install(TARGETS ${gpgpu_installed_libraries} EXPORT gpgpuTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
# cpu_matmul.hpp belongs to the CPU reference library used by the tests and the speed test,
# which is not installed; the MPI headers only come with the MPI library; gpgpu::nn_onnx
# (the ONNX library's only user) is linked into the CLI and the Python module but not
# installed for other projects yet, so its header stays out too.
set(gpgpu_header_excludes PATTERN "cpu_matmul.hpp" EXCLUDE PATTERN "onnx.hpp" EXCLUDE)
if(NOT TARGET gpgpu_mpi)
  list(APPEND gpgpu_header_excludes PATTERN "mpi.hpp" EXCLUDE PATTERN "mpi" EXCLUDE)
endif()
set(GPGPU_HAVE_NETCDF OFF)  # read by gpgpuConfig.cmake.in: find_dependency(netCDF)
if(TARGET gpgpu_earth_netcdf)
  set(GPGPU_HAVE_NETCDF ON)
else()
  list(APPEND gpgpu_header_excludes PATTERN "netcdf.hpp" EXCLUDE)
endif()
install(DIRECTORY include/gpgpu DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev
        ${gpgpu_header_excludes})
install(EXPORT gpgpuTargets NAMESPACE gpgpu:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpgpu
        COMPONENT dev)
configure_package_config_file(cmake/gpgpuConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/gpgpuConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpgpu)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/gpgpuConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/gpgpuConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/gpgpuConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpgpu COMPONENT dev)
