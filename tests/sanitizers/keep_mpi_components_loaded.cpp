// Linked into the MPI executables of a sanitized build (-DGPGPU_SANITIZE=ON: the MPI tests
// and gpgpu-mpi, see tests/mpi_tests.cmake and tools/CMakeLists.txt): no shared library is
// ever unmapped, so Open MPI's components stay mapped until the process ends, as
// keep_gl_drivers_loaded.cpp does for the GL drivers.
//
// Why: Open MPI and PMIx dlopen their components (mca_*.so), dlclose the ones they do not
// select already in MPI_Init and the rest in MPI_Finalize, while some of their small
// process-lifetime allocations (component names, version strings) live on. At exit
// LeakSanitizer then finds blocks whose allocating frames lie in no mapped module
// ("<unknown module>", or another module that reuses the address range), which no
// suppression by name can match: the leak check fails on allocations that are not gpgpu's.
// Defined in the executable, this dlclose takes the place of libc's for every library of
// the process (ELF symbol interposition), and does what RTLD_NODELETE would: nothing. The
// components' frames keep their names, and tests/mpi/lsan-mpi.supp suppresses them, never
// gpgpu's. Libraries are unmapped at exit anyway; only the order changes.
extern "C" int dlclose(void*) {
  return 0;
}
