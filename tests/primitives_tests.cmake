# gpgpu primitives: one executable per primitive, so that ctest runs them in parallel.
set(_gpgpu_primitives_tests ${CMAKE_CURRENT_LIST_DIR}/primitives)
gpgpu_add_test(primitives_reduce_test ${_gpgpu_primitives_tests}/reduce_test.cpp)
gpgpu_add_test(primitives_argextreme_test ${_gpgpu_primitives_tests}/argextreme_test.cpp)
