# gpgpu::matmul tests (issue 4); included from tests/CMakeLists.txt. The float64 truth comes
# from gpgpu::cpu.
gpgpu_add_test(matmul_test ${CMAKE_CURRENT_LIST_DIR}/matmul_test.cpp LIBS gpgpu::cpu)
