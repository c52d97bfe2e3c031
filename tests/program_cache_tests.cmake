# The disk cache of program binaries and batches of compiles (src/shader): round trips in new
# Contexts, damaged, foreign and unwritable caches, two `gpgpu sort` processes at once.
if(TARGET gpgpu_cli)
  gpgpu_add_test(program_cache_test ${CMAKE_CURRENT_LIST_DIR}/program_cache_test.cpp)
  target_include_directories(program_cache_test PRIVATE ${PROJECT_SOURCE_DIR}/src)
  add_dependencies(program_cache_test gpgpu_cli)
  target_compile_definitions(program_cache_test PRIVATE GPGPU_CLI_PATH="$<TARGET_FILE:gpgpu_cli>")
endif()
