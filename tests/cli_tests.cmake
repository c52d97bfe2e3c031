if(TARGET gpgpu_cli)
  gpgpu_add_test(cli_test cli_test.cpp)
  add_dependencies(cli_test gpgpu_cli)
  target_compile_definitions(cli_test PRIVATE GPGPU_CLI_PATH="$<TARGET_FILE:gpgpu_cli>"
                                              GPGPU_TEST_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data")
endif()
