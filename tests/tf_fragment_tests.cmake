# Textures, transform-feedback kernels, fragment kernels, the gpgpu.js facade and the seeds'
# samples (issue 3); included from tests/CMakeLists.txt.
gpgpu_add_test(texture_test ${CMAKE_CURRENT_LIST_DIR}/texture_test.cpp)
gpgpu_add_test(transform_feedback_test ${CMAKE_CURRENT_LIST_DIR}/transform_feedback_test.cpp)
gpgpu_add_test(fragment_kernel_test ${CMAKE_CURRENT_LIST_DIR}/fragment_kernel_test.cpp)
gpgpu_add_test(gpgpu_js_test ${CMAKE_CURRENT_LIST_DIR}/gpgpu_js_test.cpp)
gpgpu_add_test(seed_samples_test ${CMAKE_CURRENT_LIST_DIR}/seed_samples_test.cpp)
target_include_directories(seed_samples_test PRIVATE ${PROJECT_SOURCE_DIR}/examples/seed_samples)
gpgpu_add_test(three_paths_test ${CMAKE_CURRENT_LIST_DIR}/three_paths_test.cpp)
