# Tunings kept in the disk cache between processes: primitive shapes (store_primitive_tuning).
# The nn GEMM tilings are tested in nn_tuning_tests.cmake, the work-group size in memory_test,
# the matmul tuner in matmul_test, program binaries in program_cache_tests.cmake.
gpgpu_add_test(tuning_cache_test ${CMAKE_CURRENT_LIST_DIR}/tuning_cache_test.cpp)
