# The earth grid benchmark (`gpgpu bench grid`), a static library the CLI links.
if(TARGET gpgpu_earth)
  find_package(nlohmann_json 3 REQUIRED)
  add_library(gpgpu_bench_grid STATIC ${CMAKE_CURRENT_LIST_DIR}/grid/grid_bench.cpp)
  target_include_directories(gpgpu_bench_grid PUBLIC ${CMAKE_CURRENT_LIST_DIR}/grid)
  target_link_libraries(gpgpu_bench_grid PUBLIC gpgpu::earth
                                         PRIVATE fmt::fmt nlohmann_json::nlohmann_json gpgpu_warnings)
endif()
