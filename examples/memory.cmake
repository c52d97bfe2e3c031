# Issue 5 examples: memory access patterns, transfers that overlap with compute, profiling.
gpgpu_add_example(trace_transpose ${CMAKE_CURRENT_LIST_DIR}/memory/trace_transpose.cpp)
gpgpu_add_example(overlap_pipeline ${CMAKE_CURRENT_LIST_DIR}/memory/overlap_pipeline.cpp)
