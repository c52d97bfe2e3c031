# Issue 5 examples: memory access patterns, transfers that overlap with compute, profiling.
gpgpu_add_example(trace_transpose ${CMAKE_CURRENT_LIST_DIR}/memory/trace_transpose.cpp)
