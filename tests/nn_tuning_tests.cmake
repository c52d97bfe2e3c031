# The tuning cache of gpgpu::nn's GEMMs (src/nn/compute/gemm_tuning.cpp): internal, so the
# test sees the nn sources' folders.
if(TARGET gpgpu_nn)
  gpgpu_add_test(nn_gemm_tuning_test ${CMAKE_CURRENT_LIST_DIR}/nn/nn_gemm_tuning_test.cpp
                 LIBS gpgpu::nn)
  target_include_directories(nn_gemm_tuning_test PRIVATE ${PROJECT_SOURCE_DIR}/src/nn
                                                         ${PROJECT_SOURCE_DIR}/src/nn/compute)
endif()
if(TARGET gpgpu_nn)
  # Every block shape of the shared-memory GEMM kernels (GPGPU_NN_BLOCKS) on convolutions and
  # a split dense layer, against the float64 reference.
  gpgpu_add_test(nn_gemm_blocks_test ${CMAKE_CURRENT_LIST_DIR}/nn/nn_gemm_blocks_test.cpp
                 LIBS gpgpu_nn_test_support)
  target_include_directories(nn_gemm_blocks_test PRIVATE ${PROJECT_SOURCE_DIR}/src/nn
                                                         ${PROJECT_SOURCE_DIR}/src/nn/compute)
endif()
