# gpgpu::earth — the geodesic grid, the finite-volume operators, the shallow-water model
# (against its float64 reference and the Williamson test cases), the pictures, the partition
# across ranks, the command's option checks, and the grid build's devices, grids on disk and
# the command with grids on disk; several executables so that each stays well under a minute
# on llvmpipe. Every earth test runs with its own GPGPU_CACHE_DIR in the build tree (the
# tests of the cache make their own folders below the system's temporary directory): none
# touches ~/.cache.
set(_earth ${CMAKE_CURRENT_LIST_DIR}/earth)
gpgpu_add_test(earth_grid_test ${_earth}/grid_test.cpp LIBS gpgpu::earth)
gpgpu_add_test(earth_operators_test ${_earth}/operators_test.cpp LIBS gpgpu::earth)
gpgpu_add_test(earth_model_test ${_earth}/model_test.cpp LIBS gpgpu::earth)
gpgpu_add_test(earth_one_dispatch_test ${_earth}/one_dispatch_test.cpp LIBS gpgpu::earth)
gpgpu_add_test(earth_render_test ${_earth}/render_test.cpp LIBS gpgpu::earth)
gpgpu_add_test(earth_partition_test ${_earth}/partition_test.cpp LIBS gpgpu::earth)
gpgpu_add_test(earth_grid_build_test ${_earth}/grid_build_test.cpp LIBS gpgpu::earth)
gpgpu_add_test(earth_grid_cache_test ${_earth}/grid_cache_test.cpp LIBS gpgpu::earth)
set(_earth_tests earth_grid_test earth_operators_test earth_model_test earth_one_dispatch_test
                 earth_render_test earth_partition_test earth_grid_build_test earth_grid_cache_test)
if(TARGET gpgpu_cli)
  # The option checks of `gpgpu earth` (runs across MPI ranks: mpi_tests.cmake).
  gpgpu_add_test(earth_cli_test ${_earth}/earth_cli_test.cpp)
  add_dependencies(earth_cli_test gpgpu_cli)
  target_compile_definitions(earth_cli_test PRIVATE GPGPU_CLI_PATH="$<TARGET_FILE:gpgpu_cli>")
  gpgpu_add_test(earth_grid_command_test ${_earth}/grid_command_test.cpp LIBS gpgpu::earth)
  add_dependencies(earth_grid_command_test gpgpu_cli)
  target_compile_definitions(earth_grid_command_test PRIVATE
                             GPGPU_CLI_PATH="$<TARGET_FILE:gpgpu_cli>")
  list(APPEND _earth_tests earth_cli_test earth_grid_command_test)
endif()
foreach(_test ${_earth_tests})
  set_tests_properties(${_test} PROPERTIES
                       ENVIRONMENT "GPGPU_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/cache-${_test}")
endforeach()
unset(_test)
unset(_earth_tests)
unset(_earth)
