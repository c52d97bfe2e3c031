target_sources(gpgpu PRIVATE ${CMAKE_CURRENT_LIST_DIR}/npy.cpp)
