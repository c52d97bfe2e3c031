# Research probes: small programs that time kernel variants on one device, used to choose
# the library's kernels (docs/matmul.md tells what they found). Not part of the speed test.
add_executable(sgemm_probe ${CMAKE_CURRENT_LIST_DIR}/probes/sgemm_probe.cpp)
target_link_libraries(sgemm_probe PRIVATE gpgpu::gpgpu gpgpu_warnings)
