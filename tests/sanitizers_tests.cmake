# Tests of the sanitized build itself (-DGPGPU_SANITIZE=ON only): LeakSanitizer must report
# a leak of gpgpu's (a kernel never deleted) and must report nothing for a clean program
# that makes and ends Contexts, whatever the GL driver does at exit.
if(GPGPU_SANITIZE)
  add_executable(leak_probe ${CMAKE_CURRENT_LIST_DIR}/sanitizers/leak_probe.cpp)
  target_link_libraries(leak_probe PRIVATE gpgpu::gpgpu gpgpu_warnings)
  foreach(mode leak clean)
    add_test(NAME sanitizer_reports_${mode}
             COMMAND ${CMAKE_COMMAND} -DPROBE=$<TARGET_FILE:leak_probe> -DMODE=${mode}
                     -DSUPPRESSIONS=${CMAKE_CURRENT_LIST_DIR}/sanitizers/lsan.supp
                     -P ${CMAKE_CURRENT_LIST_DIR}/sanitizers/expect_leak_report.cmake)
    set_tests_properties(sanitizer_reports_${mode} PROPERTIES TIMEOUT 300)
  endforeach()
endif()
