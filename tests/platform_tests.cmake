# The platform seam (src/gl/platform.hpp, issue 19): the OpenGL ES 3.0 paths of the browser
# build checked natively where they can run, and the GPU copies it uses. It includes headers
# from src/ (the introspection and the GLSL source readers are internal).
gpgpu_add_test(platform_test ${CMAKE_CURRENT_LIST_DIR}/platform_test.cpp)
target_include_directories(platform_test PRIVATE ${PROJECT_SOURCE_DIR}/src)
