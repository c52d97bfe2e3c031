# `gpgpu bench startup`: time to first result of fresh processes, with an empty and a warm
# cache (bench/startup/startup_bench.hpp).
if(TARGET gpgpu_nn)
  find_package(nlohmann_json 3 REQUIRED)
  add_library(gpgpu_bench_startup STATIC ${CMAKE_CURRENT_LIST_DIR}/startup/startup_bench.cpp
                                         ${CMAKE_CURRENT_LIST_DIR}/startup/startup_probe.cpp)
  target_include_directories(gpgpu_bench_startup PUBLIC ${CMAKE_CURRENT_LIST_DIR}/startup)
  target_link_libraries(gpgpu_bench_startup PUBLIC gpgpu::gpgpu gpgpu::nn
                        PRIVATE fmt::fmt nlohmann_json::nlohmann_json gpgpu_warnings)
endif()
