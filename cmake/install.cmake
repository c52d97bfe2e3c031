# Installs the library, its headers and a CMake package so that another project can
# find_package(gpgpu) and link gpgpu::gpgpu.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# gpgpu::earth (the geodesic grid and shallow-water model) installs with it.
install(TARGETS gpgpu gpgpu_earth gpgpu_warnings EXPORT gpgpuTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# gpgpu::nn (convolutional networks), exported with the library.
if(TARGET gpgpu_nn)
  install(TARGETS gpgpu_nn EXPORT gpgpuTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
# cpu_matmul.hpp belongs to the CPU reference library used by the tests and the speed test,
# which is not installed.
# gpgpu::mpi and gpgpu::earth_mpi are built in the tree only (not exported yet): their headers
# stay out too.
install(DIRECTORY include/gpgpu DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        PATTERN "cpu_matmul.hpp" EXCLUDE
        PATTERN "mpi.hpp" EXCLUDE PATTERN "mpi" EXCLUDE)
install(EXPORT gpgpuTargets NAMESPACE gpgpu:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpgpu)
configure_package_config_file(cmake/gpgpuConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/gpgpuConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpgpu)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/gpgpuConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/gpgpuConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/gpgpuConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpgpu)
