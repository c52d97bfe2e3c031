# Runs the sanitized leak_probe and checks what LeakSanitizer says about it:
#   cmake -DPROBE=<leak_probe> -DMODE=leak|clean -DSUPPRESSIONS=<lsan.supp> -P expect_leak_report.cmake
# MODE=leak passes only if the leaked kernel and plan are reported (direct leaks in
#   leak_a_kernel and leak_a_plan, and indirect ones allocated inside the library, in
#   src/matmul/matmul_plan.cpp), despite the suppressions;
# MODE=clean passes only if the program succeeds and LeakSanitizer reports nothing.
# The options are set here, not inherited, so that the test means the same wherever it runs.
set(ENV{ASAN_OPTIONS} "detect_leaks=1:abort_on_error=0:exitcode=23:strict_string_checks=1")
set(ENV{LSAN_OPTIONS} "suppressions=${SUPPRESSIONS}:print_suppressions=0")
set(ENV{UBSAN_OPTIONS} "print_stacktrace=1:halt_on_error=1")
execute_process(COMMAND ${PROBE} ${MODE} RESULT_VARIABLE status OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
set(all "${out}${err}")
message("${all}")
if(MODE STREQUAL "leak")
  if(status EQUAL 0)
    message(FATAL_ERROR "the leaking probe exited 0: LeakSanitizer did not fail the run")
  endif()
  foreach(expected "LeakSanitizer: detected memory leaks" "Direct leak of" "leak_a_kernel"
                   "leak_a_plan" "Indirect leak of" "src/matmul/matmul_plan.cpp")
    string(FIND "${all}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "the leak report lacks '${expected}': a leak of gpgpu's went unreported")
    endif()
  endforeach()
  message("the deliberate leak was reported")
elseif(MODE STREQUAL "clean")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "the clean probe failed with status ${status}")
  endif()
  string(FIND "${all}" "Sanitizer" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "a sanitizer reported something for a clean program")
  endif()
  message("the clean run was reported clean")
else()
  message(FATAL_ERROR "MODE must be leak or clean, not '${MODE}'")
endif()
