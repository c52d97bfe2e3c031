# CPU matrix-multiplication tests (gpgpu::cpu); included from tests/CMakeLists.txt.
if(NOT TARGET GTest::gtest_main)
  find_package(GTest REQUIRED)
endif()
include(GoogleTest)

add_executable(cpu_matmul_test ${CMAKE_CURRENT_LIST_DIR}/cpu_matmul_test.cpp)
target_link_libraries(cpu_matmul_test PRIVATE gpgpu::cpu GTest::gtest_main gpgpu_warnings)
add_test(NAME cpu_matmul_test COMMAND cpu_matmul_test --gtest_color=no)
