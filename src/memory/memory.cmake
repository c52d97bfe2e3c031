# Memory access, transfers and profiling (issue 5): included from src/CMakeLists.txt.
target_sources(gpgpu PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/gl_fence.cpp
  ${CMAKE_CURRENT_LIST_DIR}/host_buffer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/json_text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pending_transfer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profiler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transfer_queue.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transfer_state.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transpose.cpp)
target_include_directories(gpgpu PRIVATE ${CMAKE_CURRENT_LIST_DIR})
