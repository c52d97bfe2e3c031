# gpgpu::earth_netcdf — the model's fields written as NetCDF and read back through libnetcdf's
# own calls (every value against the model), the reader's checks, and writes that fail half-way
# (a full disk, simulated by a file-size limit in a child process) leaving no file behind; and
# the command's --netcdf and --initial.
if(NOT TARGET gpgpu_earth_netcdf)
  return()
endif()
find_package(netCDF CONFIG REQUIRED)  # the tests read the files with the C library directly
set(_earth ${CMAKE_CURRENT_LIST_DIR}/earth)
gpgpu_add_test(earth_netcdf_test ${_earth}/netcdf_test.cpp
               LIBS gpgpu::earth gpgpu::earth_netcdf netCDF::netcdf)
gpgpu_add_test(earth_netcdf_failure_test ${_earth}/netcdf_failure_test.cpp
               LIBS gpgpu::earth gpgpu::earth_netcdf)
set(_netcdf_tests earth_netcdf_test earth_netcdf_failure_test)
if(TARGET gpgpu_cli)
  # `gpgpu earth --netcdf` and `--initial`.
  gpgpu_add_test(earth_netcdf_cli_test ${_earth}/netcdf_cli_test.cpp
                 LIBS gpgpu::earth gpgpu::earth_netcdf)
  add_dependencies(earth_netcdf_cli_test gpgpu_cli)
  target_compile_definitions(earth_netcdf_cli_test PRIVATE GPGPU_CLI_PATH="$<TARGET_FILE:gpgpu_cli>")
  list(APPEND _netcdf_tests earth_netcdf_cli_test)
endif()
foreach(_test ${_netcdf_tests})
  set_tests_properties(${_test} PROPERTIES
                       ENVIRONMENT "GPGPU_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-${_test}")
endforeach()
unset(_test)
unset(_netcdf_tests)
unset(_earth)
