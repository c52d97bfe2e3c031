# gpgpu primitives: one executable per primitive, so that ctest runs them in parallel.
set(_gpgpu_primitives_tests ${CMAKE_CURRENT_LIST_DIR}/primitives)
gpgpu_add_test(primitives_reduce_test ${_gpgpu_primitives_tests}/reduce_test.cpp)
gpgpu_add_test(primitives_argextreme_test ${_gpgpu_primitives_tests}/argextreme_test.cpp)
gpgpu_add_test(primitives_scan_test ${_gpgpu_primitives_tests}/scan_test.cpp)
gpgpu_add_test(primitives_sort_test ${_gpgpu_primitives_tests}/sort_test.cpp)
gpgpu_add_test(buffer_texels_test ${_gpgpu_primitives_tests}/buffer_texels_test.cpp)
gpgpu_add_test(primitives_histogram_test ${_gpgpu_primitives_tests}/histogram_test.cpp)
