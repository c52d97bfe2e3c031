# cmake -P script behind the install_consumer test: installs the current build into a fresh
# prefix, then configures, builds and runs tests/consumer against that prefix only.
#
# Variables (-D): BUILD_DIR, CONSUMER_DIR, WORK_DIR, GENERATOR, CXX_COMPILER, BUILD_TYPE,
# PREFIX_PATH (the main build's CMAKE_PREFIX_PATH, for gpgpu's own dependencies), and
# SANITIZE_FLAGS (set when the library was built with sanitizers, which the consumer's link
# then needs too).
foreach(var BUILD_DIR CONSUMER_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_install_consumer.cmake needs -D${var}=...")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
set(consumer_build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output
                  ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${what} failed (${result}):\n${output}")
  endif()
  message(STATUS "${what}: ok")
  set(step_output "${output}" PARENT_SCOPE)
endfunction()

execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}"
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD_DIR} failed (${result}); install needs every "
                      "installed target built, so build the whole project first "
                      "(cmake --build ${BUILD_DIR}):\n${output}")
endif()
message(STATUS "installed into ${prefix}")

set(configure_args
  -S "${CONSUMER_DIR}" -B "${consumer_build}" -G "${GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DCMAKE_PREFIX_PATH=${prefix};${PREFIX_PATH}"
  "-DGPGPU_EXPECTED_PREFIX=${prefix}"
  # Only the fresh prefix may provide gpgpu: no package registry, no build tree.
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
if(BUILD_TYPE)
  list(APPEND configure_args "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
endif()
if(SANITIZE_FLAGS)
  list(APPEND configure_args "-DCMAKE_CXX_FLAGS=${SANITIZE_FLAGS}"
       "-DCMAKE_EXE_LINKER_FLAGS=${SANITIZE_FLAGS}")
endif()
run_step("configure the consumer" "${CMAKE_COMMAND}" ${configure_args})
run_step("build the consumer" "${CMAKE_COMMAND}" --build "${consumer_build}")
run_step("run the consumer" "${consumer_build}/gpgpu_consumer")
message(STATUS "${step_output}")
if(EXISTS "${consumer_build}/gpgpu_nn_consumer")
  run_step("run the nn consumer" "${consumer_build}/gpgpu_nn_consumer")
endif()
if(EXISTS "${consumer_build}/gpgpu_earth_consumer")
  run_step("run the earth consumer" "${consumer_build}/gpgpu_earth_consumer")
endif()
