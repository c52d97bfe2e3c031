# Issue 5 — profiling, transfers, transpose, access traces, work-group sizes, SoA vs AoS.
# One executable, so the group costs one link on the shared build machine.
find_package(nlohmann_json 3 REQUIRED)
set(_gpgpu_memory_test_sources
  ${CMAKE_CURRENT_LIST_DIR}/device_copy_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/imported_memory_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profiler_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transfer_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transpose_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/work_group_test.cpp)
gpgpu_add_test(memory_test ${_gpgpu_memory_test_sources} LIBS nlohmann_json::nlohmann_json)
# trace_test unit-tests the internal source rewriter; device_copy_test the internal copy;
# imported_memory_test asks the Context state where a Buffer's memory came from.
target_include_directories(memory_test PRIVATE ${PROJECT_SOURCE_DIR}/src)
unset(_gpgpu_memory_test_sources)
# The soa benchmark's kernels and the runner's output (when the benchmarks are built).
if(TARGET gpgpu_bench_memory)
  target_sources(memory_test PRIVATE ${CMAKE_CURRENT_LIST_DIR}/particles_test.cpp)
  target_link_libraries(memory_test PRIVATE gpgpu_bench_memory)
endif()
