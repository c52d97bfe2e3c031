# Sanitized builds (-DGPGPU_SANITIZE=ON): the compile and link flags are set in
# warnings.cmake; this adds tests/sanitizers/keep_gl_drivers_loaded.cpp to every executable
# the project builds (tests, examples, the CLI, benchmarks), so that the GL driver libraries
# stay loaded until exit and LeakSanitizer can tell the drivers' allocations from ours
# (that file says why). Call gpgpu_sanitize_executables() once every target exists.
function(gpgpu_collect_executables directory out)
  get_property(targets DIRECTORY ${directory} PROPERTY BUILDSYSTEM_TARGETS)
  set(found)
  foreach(target ${targets})
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE")
      list(APPEND found ${target})
    endif()
  endforeach()
  get_property(children DIRECTORY ${directory} PROPERTY SUBDIRECTORIES)
  foreach(child ${children})
    gpgpu_collect_executables(${child} child_found)
    list(APPEND found ${child_found})
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

function(gpgpu_sanitize_executables)
  if(NOT GPGPU_SANITIZE)
    return()
  endif()
  gpgpu_collect_executables(${PROJECT_SOURCE_DIR} executables)
  foreach(target ${executables})
    target_sources(${target} PRIVATE
                   ${PROJECT_SOURCE_DIR}/tests/sanitizers/keep_gl_drivers_loaded.cpp)
    target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS})
  endforeach()
endfunction()
