# The overlap pipeline: run temporaries through the transfer engine's copy lanes (shared GL
# contexts on their own threads) under random chunk sizes and unaligned host ranges (issue 18).
gpgpu_add_test(overlap_test ${CMAKE_CURRENT_LIST_DIR}/overlap_test.cpp)
# The lane's own test reaches into src/ (transfer/copy_lane.hpp is internal).
target_include_directories(overlap_test PRIVATE ${PROJECT_SOURCE_DIR}/src)
