# The data-path benchmarks (docs/data-path.md): host-array round trips, pipelines, matmul end
# to end, the engine's variants and the per-stage ceilings; a static library the CLI links
# (`gpgpu bench datapath`, `gpgpu bench ceiling`). Compares with CUDA where it is built.
add_library(gpgpu_bench_datapath STATIC
  ${CMAKE_CURRENT_LIST_DIR}/datapath/ceiling.cpp
  ${CMAKE_CURRENT_LIST_DIR}/datapath/datapath_env.cpp
  ${CMAKE_CURRENT_LIST_DIR}/datapath/datapath_matmul.cpp
  ${CMAKE_CURRENT_LIST_DIR}/datapath/datapath_pipeline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/datapath/datapath_runner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/datapath/datapath_saxpy.cpp
  ${CMAKE_CURRENT_LIST_DIR}/datapath/datapath_variants.cpp)
target_include_directories(gpgpu_bench_datapath PUBLIC ${CMAKE_CURRENT_LIST_DIR}/datapath)
target_link_libraries(gpgpu_bench_datapath PUBLIC gpgpu::gpgpu
                      PRIVATE gpgpu_bench_memory gpgpu::cpu fmt::fmt gpgpu_warnings
                              $<$<TARGET_EXISTS:gpgpu_cuda_ref>:gpgpu_cuda_ref>)
target_compile_definitions(gpgpu_bench_datapath
  PRIVATE $<$<TARGET_EXISTS:gpgpu_cuda_ref>:GPGPU_BENCH_HAVE_CUDA=1>)
