# gpgpu::earth — the geodesic grid, the finite-volume operators, the shallow-water model
# (against its float64 reference and the Williamson test cases) and the pictures. Four
# executables so that each stays well under a minute on llvmpipe.
set(_earth ${CMAKE_CURRENT_LIST_DIR}/earth)
gpgpu_add_test(earth_grid_test ${_earth}/grid_test.cpp LIBS gpgpu::earth)
gpgpu_add_test(earth_operators_test ${_earth}/operators_test.cpp LIBS gpgpu::earth)
gpgpu_add_test(earth_model_test ${_earth}/model_test.cpp LIBS gpgpu::earth)
gpgpu_add_test(earth_render_test ${_earth}/render_test.cpp LIBS gpgpu::earth)
unset(_earth)
