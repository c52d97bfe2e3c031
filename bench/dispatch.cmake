# `gpgpu bench dispatch` (bench/dispatch/): the CPU cost of a dispatch through
# ComputeKernel::run and through a replayed gpgpu::Sequence, the GPU cost of a dependent one,
# and the same tiny kernels launched by CUDA on a stream and from a CUDA graph where the CUDA
# reference is built (bench/cuda/cuda_dispatch.cu, GPGPU_CUDA).
find_package(nlohmann_json 3 REQUIRED)
add_library(gpgpu_bench_dispatch STATIC ${CMAKE_CURRENT_LIST_DIR}/dispatch/dispatch_bench.cpp)
target_include_directories(gpgpu_bench_dispatch PUBLIC ${CMAKE_CURRENT_LIST_DIR}/dispatch)
target_link_libraries(gpgpu_bench_dispatch PUBLIC gpgpu::gpgpu
                      PRIVATE fmt::fmt nlohmann_json::nlohmann_json gpgpu_warnings)
if(GPGPU_HAVE_CUDA)
  add_library(gpgpu_cuda_dispatch STATIC ${CMAKE_CURRENT_LIST_DIR}/cuda/cuda_dispatch.cu)
  set_target_properties(gpgpu_cuda_dispatch PROPERTIES CUDA_RUNTIME_LIBRARY Shared CUDA_STANDARD 20
                                                       CUDA_STANDARD_REQUIRED ON)
  target_include_directories(gpgpu_cuda_dispatch PUBLIC ${CMAKE_CURRENT_LIST_DIR}/cuda
                                                         ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(gpgpu_cuda_dispatch PRIVATE CUDA::cudart)
  target_compile_options(gpgpu_cuda_dispatch PRIVATE
                         $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-Wshadow>)
  target_link_libraries(gpgpu_bench_dispatch PRIVATE gpgpu_cuda_dispatch)
  target_compile_definitions(gpgpu_bench_dispatch PRIVATE GPGPU_BENCH_HAVE_CUDA=1)
endif()
