# Memory access, transfers and profiling (issue 5): included from src/CMakeLists.txt.
target_sources(gpgpu PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/gl_fence.cpp
  ${CMAKE_CURRENT_LIST_DIR}/host_buffer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/json_text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pending_transfer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profiler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_font.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_instrument.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_kernel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_png.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_stats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transfer_queue.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transfer_state.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transpose.cpp
  ${CMAKE_CURRENT_LIST_DIR}/work_group.cpp)
target_include_directories(gpgpu PRIVATE ${CMAKE_CURRENT_LIST_DIR})

# Access-pattern pictures need libpng; without it write_access_png throws UnsupportedError.
# Linked by file path (like GLESv2) so that the installed package needs no PNG target.
find_package(PNG QUIET)
if(PNG_FOUND)
  target_include_directories(gpgpu PRIVATE ${PNG_INCLUDE_DIRS})
  target_link_libraries(gpgpu PRIVATE ${PNG_LIBRARIES})
  set_property(SOURCE ${CMAKE_CURRENT_LIST_DIR}/trace_png.cpp APPEND PROPERTY COMPILE_DEFINITIONS
               GPGPU_HAVE_PNG=1 ${PNG_DEFINITIONS})
  message(STATUS "gpgpu: access-pattern PNGs through libpng ${PNG_VERSION_STRING}")
else()
  message(STATUS "gpgpu: libpng not found; write_access_png will report that it is unsupported")
endif()
