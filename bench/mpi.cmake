# gpgpu-mpi-rates: the cost of moving data between two ranks (host MPI, a halo exchange and an
# allreduce on Buffers), the measured inputs of scripts/scale-model.py. Built with gpgpu::mpi.
if(TARGET gpgpu_mpi)
  add_executable(gpgpu_mpi_rates ${CMAKE_CURRENT_LIST_DIR}/mpi/mpi_rates.cpp)
  set_target_properties(gpgpu_mpi_rates PROPERTIES OUTPUT_NAME gpgpu-mpi-rates
                                                   RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tools)
  target_link_libraries(gpgpu_mpi_rates PRIVATE gpgpu_mpi fmt::fmt gpgpu_warnings)
endif()
