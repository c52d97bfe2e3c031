# gpgpu::mpi (src/mpi), the earth model across MPI ranks (src/earth/mpi) and the gpgpu-mpi
# command (tools/), when an MPI is installed. Without one everything else builds as before
# and the MPI tests report themselves skipped.
option(GPGPU_MPI "Build gpgpu::mpi and gpgpu-mpi when find_package(MPI) finds an MPI" ON)
# MPI's C interface through FindMPI's CXX component (a C++ consumer of the installed package
# can find it without enabling C), with the deprecated MPI-2 C++ bindings kept out.
set(MPI_CXX_SKIP_MPICXX ON)
if(GPGPU_MPI)
  find_package(MPI COMPONENTS CXX QUIET)
endif()
set(GPGPU_HAVE_MPI OFF)  # read by gpgpuConfig.cmake.in: find_dependency(MPI)
if(GPGPU_MPI AND MPI_CXX_FOUND)
  set(GPGPU_HAVE_MPI ON)
  message(STATUS "gpgpu::mpi: MPI ${MPI_CXX_VERSION} (${MPIEXEC_EXECUTABLE})")
  add_subdirectory(src/mpi)
  add_subdirectory(src/earth/mpi)
  add_subdirectory(src/nn/mpi)  # data-parallel training across ranks
else()
  message(STATUS "gpgpu::mpi: no MPI found (Debian: apt-get install openmpi-bin libopenmpi-dev); "
                 "gpgpu-mpi and the MPI tests are left out")
endif()
