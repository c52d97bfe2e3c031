# Driver reproducers (tests/drivers/): plain-GL programs, no gpgpu, each showing one driver
# behaviour that gpgpu works around (docs/portability.md, "zink"). Built but not run by ctest
# (each is a statement about a driver, not about gpgpu): run one under the driver in question,
# e.g. GALLIUM_DRIVER=zink LIBGL_ALWAYS_SOFTWARE=1 build/rel/tests/stale_uniforms. Exit 0: the
# driver behaves; 1: it shows the bug.
if(EMSCRIPTEN)
  return()
endif()
find_package(OpenGL REQUIRED COMPONENTS EGL)
find_package(Threads REQUIRED)
foreach(reproducer stale_uniforms thread_fence pack_copy draw_buffer_gaps)
  add_executable(${reproducer} ${CMAKE_CURRENT_LIST_DIR}/drivers/${reproducer}.cpp)
  target_include_directories(${reproducer} PRIVATE ${GPGPU_GLES3_INCLUDE_DIR})
  target_link_libraries(${reproducer} PRIVATE OpenGL::EGL ${GPGPU_GLESV2_LIBRARY} Threads::Threads
                                              gpgpu_warnings)
endforeach()
