# gpgpu primitives: one executable per primitive, so that ctest runs them in parallel.
set(_gpgpu_primitives_tests ${CMAKE_CURRENT_LIST_DIR}/primitives)
gpgpu_add_test(primitives_reduce_test ${_gpgpu_primitives_tests}/reduce_test.cpp)
gpgpu_add_test(primitives_argextreme_test ${_gpgpu_primitives_tests}/argextreme_test.cpp)
gpgpu_add_test(primitives_scan_test ${_gpgpu_primitives_tests}/scan_test.cpp)
gpgpu_add_test(primitives_sort_test ${_gpgpu_primitives_tests}/sort_test.cpp)
gpgpu_add_test(buffer_texels_test ${_gpgpu_primitives_tests}/buffer_texels_test.cpp)
gpgpu_add_test(primitives_histogram_test ${_gpgpu_primitives_tests}/histogram_test.cpp)
gpgpu_add_test(primitives_compaction_test ${_gpgpu_primitives_tests}/compaction_test.cpp)
gpgpu_add_test(primitives_segmented_test ${_gpgpu_primitives_tests}/segmented_test.cpp)
gpgpu_add_test(primitives_variants_test ${_gpgpu_primitives_tests}/variants_test.cpp)
gpgpu_add_test(primitives_subgroup_test ${_gpgpu_primitives_tests}/subgroup_test.cpp)
# The planners against every device-limit profile (pure: the kernels' GLSL is read, not run).
gpgpu_add_test(primitives_planner_test ${_gpgpu_primitives_tests}/planner_test.cpp)
target_include_directories(primitives_planner_test PRIVATE ${PROJECT_SOURCE_DIR}/src)
# The look-back's words and epochs from inside the library (its reader alone, the epoch wrap).
gpgpu_add_test(primitives_look_back_test ${_gpgpu_primitives_tests}/look_back_test.cpp)
target_include_directories(primitives_look_back_test PRIVATE ${PROJECT_SOURCE_DIR}/src)
if(TARGET gpgpu_cli)
  gpgpu_add_test(primitives_cli_test ${_gpgpu_primitives_tests}/cli_test.cpp)
  add_dependencies(primitives_cli_test gpgpu_cli)
  target_compile_definitions(primitives_cli_test PRIVATE GPGPU_CLI_PATH="$<TARGET_FILE:gpgpu_cli>")
endif()

# The native (GL_KHR_shader_subgroup) GLSL of every subgroup kernel, compiled by
# glslangValidator: llvmpipe runs the emulated form, so this is what checks the GPU form here.
find_program(GPGPU_GLSLANG_VALIDATOR glslangValidator)
if(GPGPU_GLSLANG_VALIDATOR)
  gpgpu_add_test(primitives_subgroup_glsl_test ${_gpgpu_primitives_tests}/subgroup_glsl_test.cpp)
  target_include_directories(primitives_subgroup_glsl_test PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(primitives_subgroup_glsl_test
                             PRIVATE GPGPU_GLSLANG_VALIDATOR="${GPGPU_GLSLANG_VALIDATOR}")
else()
  message(STATUS "glslangValidator not found: primitives_subgroup_glsl_test is not built "
                 "(Debian: glslang-tools)")
endif()
