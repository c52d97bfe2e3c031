# The optional CUDA reference (bench/cuda): decides GPGPU_HAVE_CUDA from GPGPU_CUDA.
#   OFF  — never built.
#   AUTO — built when a CUDA compiler and the CUDA toolkit (cudart, cuBLAS) are found.
#   ON   — required: configuring fails with a clear message when they are missing.
# nvcc is searched for on PATH, in $CUDACXX and in /usr/local/cuda/bin. Building needs no
# GPU; running does, and the code reports cleanly when there is none.
set(GPGPU_HAVE_CUDA OFF)
string(TOUPPER "${GPGPU_CUDA}" _gpgpu_cuda_mode)
if(NOT _gpgpu_cuda_mode MATCHES "^(ON|OFF|AUTO)$")
  message(FATAL_ERROR "GPGPU_CUDA is '${GPGPU_CUDA}': expected ON, OFF or AUTO")
endif()

if(NOT _gpgpu_cuda_mode STREQUAL "OFF")
  # The toolkit's default location, which is often not on PATH; check_language still
  # tries the compiler out.
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(ENV{CUDACXX} /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  set(_gpgpu_cuda_missing "")
  if(NOT CMAKE_CUDA_COMPILER)
    set(_gpgpu_cuda_missing "no CUDA compiler (nvcc) was found")
  else()
    find_package(CUDAToolkit QUIET)
    if(NOT CUDAToolkit_FOUND OR NOT TARGET CUDA::cublas)
      set(_gpgpu_cuda_missing "the CUDA toolkit with cuBLAS was not found")
    endif()
  endif()

  if(_gpgpu_cuda_missing STREQUAL "")
    # H100 (sm_90) unless the user chose; must be set before enable_language, which would
    # otherwise pick the compiler's default.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    enable_language(CUDA)
    # CMake before 3.26 does not know nvcc's C++20 flag (nvcc has had it since 12.0) and
    # refuses C++20 CUDA targets; CUDA targets inherit C++20 from CMAKE_CXX_STANDARD.
    if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION
       AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(GPGPU_HAVE_CUDA ON)
    message(STATUS "CUDA reference: nvcc ${CMAKE_CUDA_COMPILER_VERSION}, toolkit "
                   "${CUDAToolkit_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}")
  elseif(_gpgpu_cuda_mode STREQUAL "ON")
    message(FATAL_ERROR "GPGPU_CUDA=ON but ${_gpgpu_cuda_missing}. Install the CUDA toolkit "
                        "(nvcc, cudart, cuBLAS), put nvcc on PATH or set CUDACXX, or configure "
                        "with -DGPGPU_CUDA=OFF (or AUTO to build without it).")
  else()
    message(STATUS "CUDA reference: not built (${_gpgpu_cuda_missing})")
  endif()
endif()
unset(_gpgpu_cuda_mode)
unset(_gpgpu_cuda_missing)
