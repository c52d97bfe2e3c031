# Examples of the core runtime (issue 2). Each checks its own result against a float64 CPU
# computation and exits non-zero when it is wrong, so each is also a test.
gpgpu_add_example(vector_add ${CMAKE_CURRENT_LIST_DIR}/vector_add.cpp)
gpgpu_add_example(saxpy ${CMAKE_CURRENT_LIST_DIR}/saxpy.cpp)
gpgpu_add_example(reduction_sum ${CMAKE_CURRENT_LIST_DIR}/reduction_sum.cpp)

if(GPGPU_BUILD_TESTS)
  # The top-level CMakeLists enables testing after adding this directory; enable it here too
  # so that these add_test calls are not dropped.
  enable_testing()
  foreach(example vector_add saxpy reduction_sum)
    add_test(NAME example_${example} COMMAND example_${example})
    set_tests_properties(example_${example} PROPERTIES TIMEOUT 300 FAIL_REGULAR_EXPRESSION "FAILED|gpgpu error")
  endforeach()
endif()
