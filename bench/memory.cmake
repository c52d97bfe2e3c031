# Issue 5: memory benchmarks — a static library the CLI links (`gpgpu bench memory`) and the
# bench_memory program. Compares with CUDA (gpgpu_cuda_ref) where it is built.
find_package(nlohmann_json 3 REQUIRED)
add_library(gpgpu_bench_memory STATIC
  ${CMAKE_CURRENT_LIST_DIR}/memory_runner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_table.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_bench_transfer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_bench_bandwidth.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_bench_transpose.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_bench_soa.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_bench_workgroup.cpp
  ${CMAKE_CURRENT_LIST_DIR}/particles.cpp)
target_include_directories(gpgpu_bench_memory PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(gpgpu_bench_memory PUBLIC gpgpu::gpgpu
                      PRIVATE fmt::fmt nlohmann_json::nlohmann_json gpgpu_warnings)
if(TARGET gpgpu_cuda_ref)
  target_link_libraries(gpgpu_bench_memory PRIVATE gpgpu_cuda_ref)
  target_compile_definitions(gpgpu_bench_memory PRIVATE GPGPU_BENCH_HAVE_CUDA=1)
endif()

add_executable(bench_memory ${CMAKE_CURRENT_LIST_DIR}/memory_main.cpp)
target_link_libraries(bench_memory PRIVATE gpgpu_bench_memory gpgpu_warnings)
