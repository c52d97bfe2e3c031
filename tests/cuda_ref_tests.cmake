# CUDA reference tests; included from tests/CMakeLists.txt. Built only when the CUDA
# reference is (GPGPU_HAVE_CUDA); they skip, saying why, on a machine without a GPU.
if(NOT GPGPU_HAVE_CUDA OR NOT TARGET gpgpu_cuda_ref)
  return()
endif()
if(NOT TARGET GTest::gtest_main)
  find_package(GTest REQUIRED)
endif()
include(GoogleTest)

add_executable(cuda_ref_test ${CMAKE_CURRENT_LIST_DIR}/cuda_ref_test.cpp)
target_link_libraries(cuda_ref_test PRIVATE gpgpu_cuda_ref gpgpu::cpu GTest::gtest_main
                                            gpgpu_warnings)
add_test(NAME cuda_ref_test COMMAND cuda_ref_test --gtest_color=no)
