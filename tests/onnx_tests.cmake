# gpgpu::nn_onnx tests (src/nn/onnx); included from tests/CMakeLists.txt. The operators against
# a float64 NumPy reference of their ONNX meaning, on graphs the onnx package's helper writes,
# are tests/python/test_nn_onnx.py (in python_pytest); these are the C++ side: round trips of
# every layer, folding, atomic writes, errors, and the CLI.
if(NOT TARGET gpgpu_nn_onnx OR NOT GPGPU_ONNX OR NOT TARGET gpgpu_nn_test_support)
  return()
endif()
find_package(Protobuf REQUIRED)
find_package(ONNX CONFIG REQUIRED)
gpgpu_add_test(onnx_test ${CMAKE_CURRENT_LIST_DIR}/onnx/onnx_test.cpp
               LIBS gpgpu_nn_test_support gpgpu::nn_onnx onnx onnx_proto protobuf::libprotobuf)
target_compile_definitions(onnx_test PRIVATE
                           GPGPU_ONNX_CORPUS="${CMAKE_CURRENT_LIST_DIR}/fuzz/corpus/onnx")
if(TARGET gpgpu_cli)
  # gpgpu export-onnx, predict and export-web with .onnx files, run as a user would.
  gpgpu_add_test(onnx_cli_test ${CMAKE_CURRENT_LIST_DIR}/onnx/onnx_cli_test.cpp LIBS gpgpu::nn)
  add_dependencies(onnx_cli_test gpgpu_cli)
  target_compile_definitions(onnx_cli_test PRIVATE GPGPU_CLI_PATH="$<TARGET_FILE:gpgpu_cli>")
endif()
