# gpgpu_link_openblas(TARGET): links OpenBLAS itself (not any BLAS: openblas_set_num_threads()
# and openblas_get_config() are its own) privately to TARGET, with its headers as system
# headers (they are not -Wpedantic clean under clang: C99 _Complex). Its CMake package
# (Debian/Ubuntu libopenblas-dev, conda) first, then pkg-config; the library is linked by
# its full path, so that an exported static target carries no imported target with it; the
# path is kept in the global property GPGPU_OPENBLAS_LIBRARIES for cmake/package.cmake.
function(gpgpu_link_openblas target)
  find_package(OpenBLAS CONFIG QUIET)
  if(OpenBLAS_FOUND AND OpenBLAS_INCLUDE_DIRS AND OpenBLAS_LIBRARIES)
    target_include_directories(${target} SYSTEM PRIVATE ${OpenBLAS_INCLUDE_DIRS})
    target_link_libraries(${target} PRIVATE ${OpenBLAS_LIBRARIES})
    set_property(GLOBAL PROPERTY GPGPU_OPENBLAS_LIBRARIES "${OpenBLAS_LIBRARIES}")
    message(STATUS "${target}: OpenBLAS ${OpenBLAS_VERSION} from ${OpenBLAS_LIBRARIES}")
    return()
  endif()
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(GPGPU_OPENBLAS QUIET openblas)
  endif()
  if(NOT GPGPU_OPENBLAS_FOUND)
    message(FATAL_ERROR "${target} needs OpenBLAS and found neither its CMake package nor its "
                        "pkg-config file: install it (Debian/Ubuntu: apt-get install "
                        "libopenblas-dev) or point CMAKE_PREFIX_PATH at it.")
  endif()
  target_include_directories(${target} SYSTEM PRIVATE ${GPGPU_OPENBLAS_INCLUDE_DIRS})
  target_link_libraries(${target} PRIVATE ${GPGPU_OPENBLAS_LINK_LIBRARIES})
  set_property(GLOBAL PROPERTY GPGPU_OPENBLAS_LIBRARIES "${GPGPU_OPENBLAS_LINK_LIBRARIES}")
  message(STATUS "${target}: OpenBLAS ${GPGPU_OPENBLAS_VERSION} (pkg-config)")
endfunction()
