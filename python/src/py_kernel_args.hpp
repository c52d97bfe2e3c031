// Keyword arguments of a kernel's run() as gpgpu::Args: each Python value is matched to the
// kernel's variable of that name and bound without copying where it can be (a NumPy array's
// memory is the host span), with the rules of gpgpu's C++ binding:
//   storage block  <- NumPy array or gpgpu.Buffer; a writable array is read back after the
//                     run unless the block is declared readonly or the array is wrapped in
//                     gpgpu.In; gpgpu.Out skips the upload
//   in (vertex)    <- NumPy array or gpgpu.Buffer (never written back)
//   out            <- a writable NumPy array (written back) or a gpgpu.Buffer / Texture
//   uniform        <- Python or NumPy scalars, sequences, arrays of the declared type
//   sampler/image  <- gpgpu.Texture
// Arrays must already have the declared element type and be C-contiguous; copy=True converts
// them explicitly (and copies the results back into the caller's arrays). Names listed in
// out= are returned as new arrays (allocated when not given; the caller's are not changed).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "gpgpu/arg.hpp"
#include "gpgpu/kernel_variable.hpp"

namespace gpgpu::python {

namespace py = pybind11;

// One kernel's variables by name (storage blocks also by member name).
class VariableTable {
 public:
  VariableTable() = default;
  VariableTable(std::vector<KernelVariable> variables, std::set<std::string> readonly_blocks);
  const KernelVariable* find(const std::string& name) const;
  bool is_readonly(const KernelVariable& v) const;
  const std::vector<KernelVariable>& all() const { return variables_; }
  const std::set<std::string>& readonly_names() const { return readonly_; }

 private:
  std::vector<KernelVariable> variables_;
  std::unordered_map<std::string, std::size_t> index_;
  std::set<std::string> readonly_;
};

// The names out= asks for: None, one name (the result is that array) or a list (a tuple).
struct OutRequest {
  std::vector<std::string> names;
  bool single = false;
};
OutRequest parse_out(const py::handle& out);

// How to size arrays that out= asks gpgpu to allocate.
struct OutputSizing {
  std::optional<std::size_t> items;                         // compute: run(items=n)
  std::optional<std::pair<std::size_t, std::size_t>> grid;  // fragment: (rows, cols)
};

// A bound call: the Args and every Python object they point into.
class BoundCall {
 public:
  Args args;
  // Copies back the results of converted arrays (copy=True) and returns what out= asked for.
  py::object finish();

  // For bind_call.
  std::vector<py::object> keep_alive;
  std::vector<std::pair<py::array, py::array>> write_backs;  // (caller's, converted)
  std::map<std::string, py::array> results;                  // by name
  std::vector<std::string> result_order;                     // as out= lists them
  bool single_result = false;
};

// Binds `values` (name -> Python value) to the kernel's variables. `label` names the kernel in
// messages. Raises before anything runs when a value cannot be bound.
BoundCall bind_call(const VariableTable& table, const std::string& label, const py::dict& values,
                    const OutRequest& out, const OutputSizing& sizing, bool copy);

// kwargs plus the entries of args= (for variables named like run()'s own keywords).
py::dict merge_values(const py::object& args, const py::kwargs& kwargs);

}  // namespace gpgpu::python
