# gpgpu::mpi (src/mpi), the earth model across MPI ranks (src/earth/mpi) and the gpgpu-mpi
# command (tools/), when an MPI is installed. Without one everything else builds as before
# and the MPI tests report themselves skipped.
option(GPGPU_MPI "Build gpgpu::mpi and gpgpu-mpi when find_package(MPI) finds an MPI" ON)
if(GPGPU_MPI)
  find_package(MPI COMPONENTS C QUIET)
endif()
if(GPGPU_MPI AND MPI_C_FOUND)
  message(STATUS "gpgpu::mpi: MPI ${MPI_C_VERSION} (${MPIEXEC_EXECUTABLE})")
  add_subdirectory(src/mpi)
  add_subdirectory(src/earth/mpi)
else()
  message(STATUS "gpgpu::mpi: no MPI found (Debian: apt-get install openmpi-bin libopenmpi-dev); "
                 "gpgpu-mpi and the MPI tests are left out")
endif()
