# gpgpu::earth — the geodesic grid, the finite-volume operators, the shallow-water model
# (against its float64 reference and the Williamson test cases) and the pictures. Four
# executables so that each stays well under a minute on llvmpipe.
set(_earth ${CMAKE_CURRENT_LIST_DIR}/earth)
gpgpu_add_test(earth_grid_test ${_earth}/grid_test.cpp LIBS gpgpu::earth)
gpgpu_add_test(earth_operators_test ${_earth}/operators_test.cpp LIBS gpgpu::earth)
gpgpu_add_test(earth_model_test ${_earth}/model_test.cpp LIBS gpgpu::earth)
gpgpu_add_test(earth_render_test ${_earth}/render_test.cpp LIBS gpgpu::earth)
gpgpu_add_test(earth_partition_test ${_earth}/partition_test.cpp LIBS gpgpu::earth)
if(TARGET gpgpu_cli)
  # The option checks of `gpgpu earth` (runs across MPI ranks: mpi_tests.cmake).
  gpgpu_add_test(earth_cli_test ${_earth}/earth_cli_test.cpp)
  add_dependencies(earth_cli_test gpgpu_cli)
  target_compile_definitions(earth_cli_test PRIVATE GPGPU_CLI_PATH="$<TARGET_FILE:gpgpu_cli>")
endif()
unset(_earth)
