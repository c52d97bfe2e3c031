# Reliability (silent limits, misuse, hostile input, resources): tests/reliability/. Each
# runs on llvmpipe in CI; the edge sizes are past llvmpipe's limits but kept small in m, n.
gpgpu_add_test(long_loops_test ${CMAKE_CURRENT_LIST_DIR}/reliability/long_loops_test.cpp
               LIBS gpgpu::cpu)

# The command line as a careless user drives it (needs the gpgpu tool).
if(TARGET gpgpu_cli)
  gpgpu_add_test(cli_misuse_test ${CMAKE_CURRENT_LIST_DIR}/reliability/cli_misuse_test.cpp)
  add_dependencies(cli_misuse_test gpgpu_cli)
  target_compile_definitions(cli_misuse_test PRIVATE
    GPGPU_CLI_PATH="$<TARGET_FILE:gpgpu_cli>"
    GPGPU_EXAMPLE_KERNELS="${PROJECT_SOURCE_DIR}/examples/kernels")
endif()

# Defects found by reading the code, one regression test each.
gpgpu_add_test(defects_test ${CMAKE_CURRENT_LIST_DIR}/reliability/defects_test.cpp)

# Misuse: threads, work sizes past the arrays, device limits, defines, timeouts.
gpgpu_add_test(misuse_test ${CMAKE_CURRENT_LIST_DIR}/reliability/misuse_test.cpp)

# Memory under repetition (10^4 runs, 10^3 Contexts, 500 kernels). ASan's quarantine keeps
# freed memory resident on purpose; it is turned off here so that growth means a leak. The
# thousand Contexts (most of the time) are an entry of their own, resources_contexts_test,
# which the pass under a limit profile leaves out: making a Context reads no limit.
gpgpu_add_test(resources_test ${CMAKE_CURRENT_LIST_DIR}/reliability/resources_test.cpp)
add_test(NAME resources_contexts_test COMMAND resources_test --gtest_color=no)
set_tests_properties(resources_contexts_test PROPERTIES TIMEOUT 900)
if(GPGPU_SANITIZE)
  set_tests_properties(resources_test resources_contexts_test PROPERTIES ENVIRONMENT
    "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:quarantine_size_mb=0:thread_local_quarantine_size_kb=0")
endif()
set_property(TEST resources_test APPEND PROPERTY ENVIRONMENT
             "GTEST_FILTER=-Resources.AThousandContexts*")
set_property(TEST resources_contexts_test APPEND PROPERTY ENVIRONMENT
             "GTEST_FILTER=Resources.AThousandContexts*")

# Internal pieces (headers from src/).
gpgpu_add_test(internals_test ${CMAKE_CURRENT_LIST_DIR}/reliability/internals_test.cpp)
target_include_directories(internals_test PRIVATE ${PROJECT_SOURCE_DIR}/src)
