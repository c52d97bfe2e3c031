# Core runtime tests (issue 2): Context, ComputeKernel, errors, layout packing, GLSL source
# completion, and installing the library for another CMake project.
gpgpu_add_test(context_test ${CMAKE_CURRENT_LIST_DIR}/context_test.cpp)
gpgpu_add_test(compute_kernel_test ${CMAKE_CURRENT_LIST_DIR}/compute_kernel_test.cpp)
gpgpu_add_test(errors_test ${CMAKE_CURRENT_LIST_DIR}/errors_test.cpp)
# Device-limit profiles: the clamp, and kernels refused at link time (includes src/ for the
# shared-memory estimate's unit tests).
gpgpu_add_test(limits_test ${CMAKE_CURRENT_LIST_DIR}/limits_test.cpp)
target_include_directories(limits_test PRIVATE ${PROJECT_SOURCE_DIR}/src)

# Unit tests of internal helpers: they include headers from src/ and use the static
# library's internal symbols.
gpgpu_add_test(layout_pack_test ${CMAKE_CURRENT_LIST_DIR}/layout_pack_test.cpp)
target_include_directories(layout_pack_test PRIVATE ${PROJECT_SOURCE_DIR}/src)
gpgpu_add_test(glsl_source_test ${CMAKE_CURRENT_LIST_DIR}/glsl_source_test.cpp)
target_include_directories(glsl_source_test PRIVATE ${PROJECT_SOURCE_DIR}/src)

# install_consumer: `cmake --install` this build into a fresh prefix, then build and run
# tests/consumer, a project that only does find_package(gpgpu) and links gpgpu::gpgpu.
# Needs the whole project built first (install copies every installed target).
set(gpgpu_consumer_sanitize_flags "")
if(GPGPU_SANITIZE)
  set(gpgpu_consumer_sanitize_flags "-fsanitize=address,undefined -fno-omit-frame-pointer")
endif()
add_test(NAME install_consumer
         COMMAND ${CMAKE_COMMAND}
                 -DBUILD_DIR=${PROJECT_BINARY_DIR}
                 -DCONSUMER_DIR=${CMAKE_CURRENT_LIST_DIR}/consumer
                 -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/install_consumer
                 -DGENERATOR=${CMAKE_GENERATOR}
                 -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
                 -DBUILD_TYPE=${CMAKE_BUILD_TYPE}
                 "-DPREFIX_PATH=${CMAKE_PREFIX_PATH}"
                 "-DSANITIZE_FLAGS=${gpgpu_consumer_sanitize_flags}"
                 -P ${CMAKE_CURRENT_LIST_DIR}/consumer/run_install_consumer.cmake)
set_tests_properties(install_consumer PROPERTIES TIMEOUT 600)
if(GPGPU_SANITIZE)
  # The consumer is built outside this project, without the shim that keeps the GL drivers
  # loaded until exit (cmake/sanitize.cmake), so LeakSanitizer would blame the driver's exit
  # on it; the leak check itself is proven on this project's executables.
  set_tests_properties(install_consumer PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()
