# Recorded sequences (gpgpu/sequence.hpp): replays against runs, the hazard tracker's
# decisions (it includes src/sequence/hazards.hpp), uniform handles, refusals.
gpgpu_add_test(sequence_test ${CMAKE_CURRENT_LIST_DIR}/sequence_test.cpp)
target_include_directories(sequence_test PRIVATE ${PROJECT_SOURCE_DIR}/src)
