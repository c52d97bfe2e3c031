# gpgpu::matmul tests (issue 4); included from tests/CMakeLists.txt. The float64 truth comes
# from gpgpu::cpu.
gpgpu_add_test(matmul_test ${CMAKE_CURRENT_LIST_DIR}/matmul_test.cpp LIBS gpgpu::cpu)

# The benchmark's own check and runner (only when the benchmarks are built).
if(TARGET gpgpu_bench_matmul)
  find_package(nlohmann_json 3 REQUIRED)
  gpgpu_add_test(matmul_bench_test ${CMAKE_CURRENT_LIST_DIR}/matmul_bench_test.cpp
                 LIBS gpgpu_bench_matmul gpgpu::cpu nlohmann_json::nlohmann_json)
endif()
