# `gpgpu bench primitives`: reduce, scan, radix sort, histogram against CUB (when the CUDA
# reference is built), the CUDA device copy and the parallel CPU algorithms.
find_package(nlohmann_json 3 REQUIRED)
add_library(gpgpu_bench_primitives STATIC
  ${CMAKE_CURRENT_LIST_DIR}/primitives_cpu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/primitives_checks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/primitives_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/primitives_runner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/primitives_sweep.cpp)
target_include_directories(gpgpu_bench_primitives PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(gpgpu_bench_primitives PUBLIC gpgpu::gpgpu
                      PRIVATE gpgpu_gnuplot fmt::fmt nlohmann_json::nlohmann_json gpgpu_warnings)

# The CPU contenders: std::execution::par over TBB where TBB is installed (Debian
# libtbb-dev), else OpenMP (libstdc++'s parallel mode for sort), else sequential; the report
# names which.
find_package(TBB QUIET)
find_package(OpenMP QUIET)
if(TBB_FOUND)
  target_link_libraries(gpgpu_bench_primitives PRIVATE TBB::tbb)
  target_compile_definitions(gpgpu_bench_primitives PRIVATE GPGPU_BENCH_CPU_TBB=1)
elseif(OpenMP_CXX_FOUND)
  target_link_libraries(gpgpu_bench_primitives PRIVATE OpenMP::OpenMP_CXX)
  target_compile_definitions(gpgpu_bench_primitives PRIVATE GPGPU_BENCH_CPU_OPENMP=1)
endif()

# CUB, built like the cuBLAS reference when CUDA is (cmake/cuda.cmake); GPGPU_BENCH_CUB=OFF
# leaves it out (for a toolkit whose CUB does not build).
option(GPGPU_BENCH_CUB "Compare the primitives with CUB when CUDA is found" ON)
if(GPGPU_HAVE_CUDA AND GPGPU_BENCH_CUB)
  add_library(gpgpu_cuda_primitives STATIC ${CMAKE_CURRENT_LIST_DIR}/cuda/cuda_primitives.cu)
  set_target_properties(gpgpu_cuda_primitives PROPERTIES CUDA_RUNTIME_LIBRARY Shared CUDA_STANDARD 20
                                                         CUDA_STANDARD_REQUIRED ON)
  target_include_directories(gpgpu_cuda_primitives PUBLIC ${CMAKE_CURRENT_LIST_DIR}/cuda
                                                           ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(gpgpu_cuda_primitives PRIVATE CUDA::cudart)
  target_link_libraries(gpgpu_bench_primitives PRIVATE gpgpu_cuda_primitives)
  target_compile_definitions(gpgpu_bench_primitives PRIVATE GPGPU_BENCH_HAVE_CUB=1)
endif()
if(TARGET gpgpu_cuda_ref)
  target_link_libraries(gpgpu_bench_primitives PRIVATE gpgpu_cuda_ref)
  target_compile_definitions(gpgpu_bench_primitives PRIVATE GPGPU_BENCH_HAVE_CUDA=1)
endif()
