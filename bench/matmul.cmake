# The matmul speed test (issue 4): the runner as a static library, so that the CLI's
# `gpgpu bench matmul` and the standalone matmul_bench run the same code.
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 REQUIRED)

add_library(gpgpu_bench_matmul STATIC
  ${CMAKE_CURRENT_LIST_DIR}/matmul_check.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_contenders.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_runner.cpp)
target_include_directories(gpgpu_bench_matmul PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(gpgpu_bench_matmul
  PUBLIC gpgpu::gpgpu
  PRIVATE gpgpu::cpu gpgpu_gnuplot fmt::fmt nlohmann_json::nlohmann_json gpgpu_warnings
          $<$<TARGET_EXISTS:gpgpu_cuda_ref>:gpgpu_cuda_ref>)
# The CUDA contenders exist when the CUDA reference was built (cmake/cuda.cmake); decided at
# generate time, so the order in which bench/*.cmake and bench/cuda are read does not matter.
target_compile_definitions(gpgpu_bench_matmul
  PRIVATE GPGPU_BENCH_HAVE_CUDA=$<TARGET_EXISTS:gpgpu_cuda_ref>)

add_executable(matmul_bench ${CMAKE_CURRENT_LIST_DIR}/matmul_bench.cpp)
target_link_libraries(matmul_bench PRIVATE gpgpu_bench_matmul CLI11::CLI11 fmt::fmt gpgpu_warnings)
