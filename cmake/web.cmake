# The browser build, configured with Emscripten's toolchain:
#   emcmake cmake -S . -B build/web -G Ninja && cmake --build build/web
# It compiles only what the browser needs: the core library over WebGL2 (src/, its platform
# being src/platform/webgl), gpgpu::nn, and the JavaScript module (js/), whose output lands in
# one folder, build/web/dist (docs/browser.md). No tests, benchmarks, examples, CLI, Python,
# CUDA, primitives, tracer or earth: the native build has them.
if(CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  message(FATAL_ERROR "the browser build needs Emscripten's clang 13 or newer")
endif()

# C++ exceptions carry every gpgpu::Error to JavaScript: compiled in everywhere.
add_compile_options(-fexceptions)
add_link_options(-fexceptions)
# Clang warns about a private field that only some builds use (src/nn's transform-feedback
# layers); the native build (GCC) does not check it either.
target_compile_options(gpgpu_warnings INTERFACE -Wno-unused-private-field)

# fmt and nlohmann_json are header libraries of the host (Debian's libfmt-dev and
# nlohmann-json3-dev): their folders alone are put on the include path, through links in the
# build tree, so that no other host header can shadow Emscripten's C library. fmt's compiled
# part is built here (js/src/fmt_library.cpp): the host's libfmt is compiled for the host.
set(GPGPU_WEB_HOST_INCLUDE /usr/include CACHE PATH "where the host's fmt/ and nlohmann/ headers are")
set(gpgpu_web_include ${CMAKE_BINARY_DIR}/host-headers)
file(MAKE_DIRECTORY ${gpgpu_web_include})
foreach(dir fmt nlohmann)
  if(NOT EXISTS ${GPGPU_WEB_HOST_INCLUDE}/${dir})
    message(FATAL_ERROR "the browser build needs the host's ${dir}/ headers in "
                        "${GPGPU_WEB_HOST_INCLUDE} (Debian: libfmt-dev, nlohmann-json3-dev)")
  endif()
  file(CREATE_LINK ${GPGPU_WEB_HOST_INCLUDE}/${dir} ${gpgpu_web_include}/${dir} SYMBOLIC)
endforeach()
add_library(gpgpu_web_fmt STATIC ${PROJECT_SOURCE_DIR}/js/src/fmt_library.cpp)
target_include_directories(gpgpu_web_fmt SYSTEM PUBLIC ${gpgpu_web_include})
add_library(fmt::fmt ALIAS gpgpu_web_fmt)
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED GLOBAL)
target_include_directories(nlohmann_json::nlohmann_json SYSTEM INTERFACE ${gpgpu_web_include})
# find_package(nlohmann_json) in the layers finds the target above.
file(WRITE ${CMAKE_FIND_PACKAGE_REDIRECTS_DIR}/nlohmann_json-config.cmake
     "# the browser build's nlohmann_json (cmake/web.cmake)\n")
file(WRITE ${CMAKE_FIND_PACKAGE_REDIRECTS_DIR}/nlohmann_json-config-version.cmake
     "set(PACKAGE_VERSION 3)\nset(PACKAGE_VERSION_COMPATIBLE TRUE)\n")

add_subdirectory(src)
add_subdirectory(src/nn)
add_subdirectory(js)
add_subdirectory(web)
