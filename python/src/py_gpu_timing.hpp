// The `timing` and `last_gpu_ns` properties of the Python classes that time their GPU work
// (the kernels, MatmulPlan, Sequence): the holder keeps the flag Python reads back, the owned
// object does the timing.
#pragma once

#include <string>

#include <pybind11/pybind11.h>

namespace gpgpu::python {

// `timed` names what one measurement covers ("run's dispatch", "run's kernel", "replay").
template <class Holder>
void def_gpu_timing(pybind11::class_<Holder>& cls, const std::string& timed) {
  cls.def_property(
         "timing", [](const Holder& h) { return h.timing; },
         [](Holder& h, bool on) {
           h.timing = on;
           h.owned->set_timing(on);
         },
         ("Measure each " + timed + " with GPU timer queries (last_gpu_ns).").c_str())
      .def_property_readonly(
          "last_gpu_ns", [](const Holder& h) { return h.owned->last_gpu_ns(); },
          ("GPU nanoseconds of the last " + timed + " when timing is on and supported, else -1.")
              .c_str());
}

}  // namespace gpgpu::python
