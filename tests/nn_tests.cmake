# gpgpu::nn tests; included from tests/CMakeLists.txt. The float64 truth comes from
# tests/nn/reference.cpp (every layer, with float32 error bounds).
if(TARGET gpgpu_nn)
  add_library(gpgpu_nn_test_support STATIC ${CMAKE_CURRENT_LIST_DIR}/nn/reference.cpp
                                           ${CMAKE_CURRENT_LIST_DIR}/nn/nn_test_support.cpp)
  target_include_directories(gpgpu_nn_test_support PUBLIC ${CMAKE_CURRENT_LIST_DIR}/nn)
  target_link_libraries(gpgpu_nn_test_support PUBLIC gpgpu::nn gpgpu_test_support GTest::gtest
                                              PRIVATE gpgpu_warnings)
  # The layer tests, once per backend variant (compute direct, compute shared-memory,
  # transform feedback, cpu), each its own executable.
  set(nn_layer_variants compute_direct compute_shared transform_feedback cpu)
  foreach(variant IN ITEMS 0 1 2 3)
    list(GET nn_layer_variants ${variant} variant_name)
    gpgpu_add_test(nn_layers_${variant_name}_test ${CMAKE_CURRENT_LIST_DIR}/nn/nn_layers_test.cpp
                   LIBS gpgpu_nn_test_support)
    target_compile_definitions(nn_layers_${variant_name}_test PRIVATE NN_LAYERS_BACKEND=${variant})
  endforeach()
endif()
if(TARGET gpgpu_nn)
  gpgpu_add_test(nn_training_test ${CMAKE_CURRENT_LIST_DIR}/nn/nn_training_test.cpp
                 LIBS gpgpu_nn_test_support)
  # Training, predicting and evaluating from float32 samples in host memory (arrays.hpp).
  gpgpu_add_test(nn_arrays_test ${CMAKE_CURRENT_LIST_DIR}/nn/nn_arrays_test.cpp
                 LIBS gpgpu_nn_test_support)
endif()
if(TARGET gpgpu_nn)
  find_package(ZLIB REQUIRED)
  gpgpu_add_test(nn_io_test ${CMAKE_CURRENT_LIST_DIR}/nn/nn_io_test.cpp LIBS gpgpu_nn_test_support ZLIB::ZLIB)
endif()
if(TARGET gpgpu_nn)
  # The CPU backend with the others: threads, backend names, models moving between backends,
  # the gradient hook.
  gpgpu_add_test(nn_cpu_test ${CMAKE_CURRENT_LIST_DIR}/nn/nn_cpu_test.cpp LIBS gpgpu_nn_test_support)
  # The gradient hooks again where the device lacks GL_EXT_buffer_storage (Mesa told to hide
  # it; other drivers ignore the variable): the compute engine's host copy of the gradients
  # is then ordinary memory filled through staging, which landed() must complete first.
  add_test(NAME nn_gradient_staging_unmapped
           COMMAND nn_cpu_test --gtest_color=no --gtest_filter=Backends/NnGradientHook.*)
  set_tests_properties(nn_gradient_staging_unmapped PROPERTIES TIMEOUT 300 ENVIRONMENT
                       "MESA_EXTENSION_OVERRIDE=-GL_EXT_buffer_storage")
endif()
if(TARGET gpgpu_nn AND TARGET gpgpu_cli)
  # gpgpu train / predict with --backend and --threads, run as a user would.
  gpgpu_add_test(nn_cli_test ${CMAKE_CURRENT_LIST_DIR}/nn/nn_cli_test.cpp LIBS gpgpu::nn)
  add_dependencies(nn_cli_test gpgpu_cli)
  target_compile_definitions(nn_cli_test PRIVATE GPGPU_CLI_PATH="$<TARGET_FILE:gpgpu_cli>")
endif()
if(TARGET gpgpu_nn)
  # The compute backend's replayed passes (gpgpu::Sequence) against every kernel run alone.
  gpgpu_add_test(nn_replay_test ${CMAKE_CURRENT_LIST_DIR}/nn/nn_replay_test.cpp
                 LIBS gpgpu_nn_test_support)
  # The compute backend's plans of the built-in networks under every device-limit profile:
  # each kernel's storage blocks, bindings, work group and shared memory, read from its source.
  gpgpu_add_test(nn_planner_limits_test ${CMAKE_CURRENT_LIST_DIR}/nn/nn_planner_limits_test.cpp
                 LIBS gpgpu::nn)
  target_include_directories(nn_planner_limits_test PRIVATE ${PROJECT_SOURCE_DIR}/src
                                                            ${PROJECT_SOURCE_DIR}/src/nn)
endif()
if(TARGET gpgpu_nn)
  # A Conv2D with its pooling fused (compute backend) against the stages apart, and the same
  # under two device-limit profiles: es31-minimum (training apart, evaluation fused; direct
  # kernels, whose 8-invocation groups fit it) and mali-g610-panfrost (all fused).
  gpgpu_add_test(nn_fusion_test ${CMAKE_CURRENT_LIST_DIR}/nn/nn_fusion_test.cpp
                 LIBS gpgpu_nn_test_support)
  target_include_directories(nn_fusion_test PRIVATE ${PROJECT_SOURCE_DIR}/src/nn)
  # The one-epoch trainings, fused and apart, are an entry of their own: they take the fused
  # kernels that nn_fusion_test's cases hold bit-equal to the stages apart, so the passes on
  # other drivers and limits leave them out (label long, tests/CMakeLists.txt).
  set_tests_properties(nn_fusion_test PROPERTIES ENVIRONMENT "GTEST_FILTER=-*Training*")
  add_test(NAME nn_fusion_training_test
           COMMAND nn_fusion_test --gtest_color=no --gtest_filter=*Training*)
  set_tests_properties(nn_fusion_training_test PROPERTIES TIMEOUT 900)
  # Under the two profiles only the cases run: the trainings add no plan the cases do not
  # check (one epoch of the "small" net is made of the same fused kernels), and took most of
  # these entries' time (mali-g610-panfrost on llvmpipe, the cases' shaders already in Mesa's
  # cache: 182 s with the trainings, 20 s without).
  add_test(NAME nn_fusion_es31_minimum
           COMMAND nn_fusion_test --gtest_color=no
                   --gtest_filter=Kernels/NnFusion.FusedStages*/direct)
  add_test(NAME nn_fusion_mali_g610
           COMMAND nn_fusion_test --gtest_color=no
                   --gtest_filter=Kernels/NnFusion.FusedStages*)
  set_tests_properties(nn_fusion_es31_minimum PROPERTIES TIMEOUT 900 ENVIRONMENT
                       "GPGPU_LIMITS=es31-minimum")
  set_tests_properties(nn_fusion_mali_g610 PROPERTIES TIMEOUT 900 ENVIRONMENT
                       "GPGPU_LIMITS=mali-g610-panfrost")
endif()
