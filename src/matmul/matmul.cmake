# gpgpu::matmul (issue 4): included from src/CMakeLists.txt.
find_package(nlohmann_json 3 REQUIRED)
target_sources(gpgpu PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/compute_naive.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compute_register_blocked.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compute_tiled.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fragment_matmul.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_autotune.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_layouts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_method.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_tuning.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transform_feedback_matmul.cpp)
# Header-only, used only inside the library (the tuning cache), so not part of its interface.
# BUILD_INTERFACE: a static library exports even PRIVATE links (as LINK_ONLY), which would make
# an installed gpgpu demand an nlohmann_json::nlohmann_json target from every consumer.
target_link_libraries(gpgpu PRIVATE $<BUILD_INTERFACE:nlohmann_json::nlohmann_json>)
