# Core runtime tests (issue 2): Context, ComputeKernel, errors, layout packing, GLSL source
# completion, and installing the library for another CMake project.
gpgpu_add_test(context_test ${CMAKE_CURRENT_LIST_DIR}/context_test.cpp)
gpgpu_add_test(compute_kernel_test ${CMAKE_CURRENT_LIST_DIR}/compute_kernel_test.cpp)
gpgpu_add_test(errors_test ${CMAKE_CURRENT_LIST_DIR}/errors_test.cpp)

# Unit tests of internal helpers: they include headers from src/ and use the static
# library's internal symbols.
gpgpu_add_test(layout_pack_test ${CMAKE_CURRENT_LIST_DIR}/layout_pack_test.cpp)
target_include_directories(layout_pack_test PRIVATE ${PROJECT_SOURCE_DIR}/src)
gpgpu_add_test(glsl_source_test ${CMAKE_CURRENT_LIST_DIR}/glsl_source_test.cpp)
target_include_directories(glsl_source_test PRIVATE ${PROJECT_SOURCE_DIR}/src)
