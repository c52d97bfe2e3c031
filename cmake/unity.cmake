# Unity builds: a library's sources compiled a batch at a time, one translation unit per batch.
# Most of each file's compile is parsing and instantiating what every file of the target
# includes (the STL, fmt, pybind11, CLI11, ONNX's protobuf headers), so batches take about
# 40 % of the CPU time of the files compiled one by one (880 CPU-s -> 350 for these targets in
# the sanitizer build, 2026-12-02). GPGPU_UNITY_BUILD=OFF compiles file by file, which
# rebuilds less after an edit.
option(GPGPU_UNITY_BUILD "Compile the libraries, the command and the Python module in batches" ON)

# gpgpu_unity_build(TARGET BATCH_SIZE [ALONE file...]): files named after ALONE (paths relative
# to the calling folder) keep a translation unit of their own, for one of two reasons the
# caller's comment or the compiler names: a name (in an anonymous namespace, or one another
# file's name shadows) that clashes within a batch, or an object that programs must be able
# to leave out of a static library (the earth pictures: libpng).
function(gpgpu_unity_build target batch_size)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "ALONE")
  if(NOT GPGPU_UNITY_BUILD)
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${batch_size})
  if(arg_ALONE)
    set_source_files_properties(${arg_ALONE} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  endif()
endfunction()
