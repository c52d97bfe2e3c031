# Examples of the reliability work: a loop longer than llvmpipe lets one invocation run,
# made correct by ComputeKernel::run_in_passes. It checks itself, so it is also a test.
gpgpu_add_example(long_loop ${CMAKE_CURRENT_LIST_DIR}/long_loop.cpp)
if(GPGPU_BUILD_TESTS)
  enable_testing()
  add_test(NAME example_long_loop COMMAND example_long_loop)
  set_tests_properties(example_long_loop PROPERTIES TIMEOUT 300 FAIL_REGULAR_EXPRESSION "FAILED|gpgpu error")
endif()
