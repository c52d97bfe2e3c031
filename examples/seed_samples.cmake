# The seeds' samples (issue 3): gpgpu.js transform-feedback samples through the
# gpgpu::js facade, and GPGPUtility's fragment-shader matrix squaring; each prints its
# result as the seed page does. Run them from the build tree: examples/seed_add_vec, ...
foreach(sample add_vec add_mul_vec add_dot_vec uni_mul uni_mul_mat tex_mul_mat tex_mul_mat_vec4
               matrix_square matrix_multiply)
  gpgpu_add_example(seed_${sample} ${CMAKE_CURRENT_LIST_DIR}/seed_samples/${sample}.cpp)
endforeach()
