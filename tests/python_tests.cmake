# The Python module's pytest suite (tests/python) and its example (examples/python), run with
# the interpreter the module was built for, importing the package from the build tree.
if(NOT TARGET gpgpu_python)
  return()
endif()
get_target_property(gpgpu_interpreter gpgpu_python GPGPU_INTERPRETER)
get_target_property(gpgpu_package_parent gpgpu_python GPGPU_PACKAGE_PARENT)
set(gpgpu_python_env "PYTHONPATH=${gpgpu_package_parent}" "PYTHONDONTWRITEBYTECODE=1")
if(GPGPU_SANITIZE)
  # The module is built with ASan+UBSan but the interpreter is not: preload their runtimes.
  # CPython keeps its interned objects and arenas until exit, which LeakSanitizer reports as
  # leaks that are not ours, so leak detection is off here (the C++ suite checks the library's
  # own objects for leaks); every other ASan and UBSan check stays on.
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE gpgpu_libasan OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libubsan.so
                  OUTPUT_VARIABLE gpgpu_libubsan OUTPUT_STRIP_TRAILING_WHITESPACE)
  list(APPEND gpgpu_python_env "LD_PRELOAD=${gpgpu_libasan}:${gpgpu_libubsan}"
       "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1"
       "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
endif()
add_test(NAME python_pytest
         COMMAND ${gpgpu_interpreter} -m pytest -q -p no:cacheprovider -rs
                 ${CMAKE_CURRENT_SOURCE_DIR}/python)
add_test(NAME python_example
         COMMAND ${gpgpu_interpreter} ${PROJECT_SOURCE_DIR}/examples/python/notebook.py
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(python_pytest python_example PROPERTIES TIMEOUT 900
                     ENVIRONMENT "${gpgpu_python_env}")
# The nn and earth examples at a size CI runs quickly on llvmpipe (their defaults are the full
# data set and level 6).
add_test(NAME python_example_train_cnn
         COMMAND ${gpgpu_interpreter} ${PROJECT_SOURCE_DIR}/examples/python/train_cnn.py
                 --limit 1200 --net small
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
add_test(NAME python_example_earth_plot
         COMMAND ${gpgpu_interpreter} ${PROJECT_SOURCE_DIR}/examples/python/earth_plot.py
                 --level 3 --days 0.5 --out ${CMAKE_CURRENT_BINARY_DIR}/earth_case2.png
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(python_example_train_cnn python_example_earth_plot PROPERTIES TIMEOUT 900
                     ENVIRONMENT "${gpgpu_python_env}")
if(TARGET gpgpu_cli)
  # The nn and earth tests compare with the command-line tool's results (GPGPU_CLI).
  add_dependencies(gpgpu_python gpgpu_cli)
  set_property(TEST python_pytest APPEND PROPERTY ENVIRONMENT
               "GPGPU_CLI=$<TARGET_FILE:gpgpu_cli>")
endif()
