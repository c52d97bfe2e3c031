# The data path (docs/data-path.md): the transfer engine under every kernel path, async runs
# and downloads, the device-buffer pool; and matmul's choices (host BLAS, split-K, panels).
gpgpu_add_test(datapath_test ${CMAKE_CURRENT_LIST_DIR}/datapath_test.cpp)
gpgpu_add_test(matmul_auto_test ${CMAKE_CURRENT_LIST_DIR}/matmul_auto_test.cpp)
