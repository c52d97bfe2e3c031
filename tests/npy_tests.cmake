# NumPy .npy reader/writer tests; included from tests/CMakeLists.txt.
# The corpus test reads tests/fuzz/corpus/npy, the fuzzer's committed corpus, in place.
if(NOT TARGET GTest::gtest_main)
  find_package(GTest REQUIRED)
endif()
include(GoogleTest)

add_executable(npy_test ${CMAKE_CURRENT_LIST_DIR}/npy_test.cpp)
target_link_libraries(npy_test PRIVATE gpgpu::gpgpu GTest::gtest_main gpgpu_warnings)
target_compile_definitions(npy_test
                           PRIVATE GPGPU_NPY_CORPUS_DIR="${CMAKE_CURRENT_LIST_DIR}/fuzz/corpus/npy")
add_test(NAME npy_test COMMAND npy_test --gtest_color=no)
