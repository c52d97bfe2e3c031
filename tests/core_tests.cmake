# Core runtime tests (issue 2): Context, ComputeKernel, errors, layout packing, GLSL source
# completion, and installing the library for another CMake project.
gpgpu_add_test(context_test ${CMAKE_CURRENT_LIST_DIR}/context_test.cpp)
gpgpu_add_test(compute_kernel_test ${CMAKE_CURRENT_LIST_DIR}/compute_kernel_test.cpp)
