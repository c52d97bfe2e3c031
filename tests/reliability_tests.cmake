# Reliability (silent limits, misuse, hostile input, resources): tests/reliability/. Each
# runs on llvmpipe in CI; the edge sizes are past llvmpipe's limits but kept small in m, n.
gpgpu_add_test(long_loops_test ${CMAKE_CURRENT_LIST_DIR}/reliability/long_loops_test.cpp
               LIBS gpgpu::cpu)
