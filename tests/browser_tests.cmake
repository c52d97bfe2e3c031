# The browser suite (issue 19): the WebAssembly build in headless Chromium on SwiftShader,
# against native results computed here by gpgpu_browser_reference. One ctest entry that
# builds (emcmake), installs puppeteer-core (npm ci) and runs; skipped with the reason (exit
# 77) where emscripten, chromium-headless-shell or node is missing (tests/browser/).
if(TARGET gpgpu_nn)  # gpgpu_nn_test_support comes from nn_tests.cmake
  find_package(nlohmann_json 3 REQUIRED)
  add_executable(gpgpu_browser_reference ${CMAKE_CURRENT_LIST_DIR}/browser/reference/browser_reference.cpp
                                         ${PROJECT_SOURCE_DIR}/js/src/nn_pixels.cpp)
  target_include_directories(gpgpu_browser_reference PRIVATE ${PROJECT_SOURCE_DIR}/js/src
                             ${PROJECT_SOURCE_DIR}/examples/seed_samples)
  target_link_libraries(gpgpu_browser_reference PRIVATE gpgpu::nn gpgpu_nn_test_support
                        nlohmann_json::nlohmann_json gpgpu_warnings)
  add_test(NAME browser_suite
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/browser/browser_test.sh ${PROJECT_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/browser $<TARGET_FILE:gpgpu_browser_reference>)
  set_tests_properties(browser_suite PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1500)
endif()
