# gpgpu::nn example: trains a small CNN on Fashion-MNIST (needs dataset-fashion-mnist).
if(TARGET gpgpu_nn)
  gpgpu_add_example(train_cnn ${CMAKE_CURRENT_LIST_DIR}/nn/train_cnn.cpp)
  target_link_libraries(example_train_cnn PRIVATE gpgpu::nn)
endif()
