// PYBIND11_MODULE(_gpgpu): the extension behind `import gpgpu` (python/gpgpu/__init__.py
// re-exports it with the pure-Python parts).
#include "py_bindings.hpp"

PYBIND11_MODULE(_gpgpu, m) {
  using namespace gpgpu::python;
  m.doc() = "gpgpu: GPU computing with a few lines of GLSL over NumPy arrays (C++ extension)";
  m.attr("__version__") = GPGPU_VERSION;  // project(gpgpu VERSION ...) in CMakeLists.txt
  bind_errors(m);
  bind_context(m);
  bind_arrays(m);
  bind_buffer(m);
  bind_texture(m);
  bind_compute_kernel(m);
  bind_sequence(m);
  bind_transform_feedback_kernel(m);
  bind_fragment_kernel(m);
  bind_gpgpu_js(m);
  bind_matmul(m);
  bind_primitives(m);
  bind_overhead(m);
  bind_nn(m);
  bind_earth(m);
}
