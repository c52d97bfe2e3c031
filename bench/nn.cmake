# The gpgpu::nn benchmark (`gpgpu bench nn`), a static library the CLI links; its PyTorch
# counterpart is bench/nn/torch_cnn.py.
if(TARGET gpgpu_nn)
  find_package(nlohmann_json 3 REQUIRED)
  add_library(gpgpu_bench_nn STATIC ${CMAKE_CURRENT_LIST_DIR}/nn/nn_bench.cpp
                                    ${CMAKE_CURRENT_LIST_DIR}/nn/nn_bench_cpu.cpp)
  target_include_directories(gpgpu_bench_nn PUBLIC ${CMAKE_CURRENT_LIST_DIR}/nn)
  target_link_libraries(gpgpu_bench_nn PUBLIC gpgpu::nn PRIVATE fmt::fmt nlohmann_json::nlohmann_json gpgpu_warnings)
  # The PyTorch counterpart the CPU section runs (overridable with --torch-script).
  target_compile_definitions(gpgpu_bench_nn PRIVATE
                             GPGPU_TORCH_CNN_SCRIPT="${CMAKE_CURRENT_LIST_DIR}/nn/torch_cnn.py")
endif()
