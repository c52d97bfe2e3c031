# HostBuffers as compute-kernel arguments (zero-copy), a run_async pipeline over them with
# random chunk sizes, and engine transfers of odd-sized, unaligned host ranges (issue 18).
gpgpu_add_test(zero_copy_test ${CMAKE_CURRENT_LIST_DIR}/zero_copy_test.cpp)
