# The tuning cache of gpgpu::nn's GEMMs (src/nn/compute/gemm_tuning.cpp): internal, so the
# test sees the nn sources' folders.
if(TARGET gpgpu_nn)
  gpgpu_add_test(nn_gemm_tuning_test ${CMAKE_CURRENT_LIST_DIR}/nn/nn_gemm_tuning_test.cpp
                 LIBS gpgpu::nn)
  target_include_directories(nn_gemm_tuning_test PRIVATE ${PROJECT_SOURCE_DIR}/src/nn
                                                         ${PROJECT_SOURCE_DIR}/src/nn/compute)
endif()
