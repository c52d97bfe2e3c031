// Internal: matching named arguments to a program's introspected variables, checking them,
// and setting uniforms. Shared by the compute, transform-feedback and fragment kernels.
#pragma once

#include <string>
#include <vector>

#include "gpgpu/arg.hpp"
#include "shader/program_interface.hpp"

namespace gpgpu::detail {

struct ResolvedArgs {
  std::vector<std::pair<const UniformVariable*, const NamedArg*>>
      uniforms;  // incl. samplers/images
  std::vector<std::pair<const StorageBlock*, const NamedArg*>> blocks;
  std::vector<std::pair<const StageVariable*, const NamedArg*>> inputs;
  std::vector<std::pair<const StageVariable*, const NamedArg*>> outputs;
};

// Pure: no GL call here (the setters are in kernels/kernel_core.hpp).

// Matches every argument to a variable. Throws UnknownArgumentError (listing the kernel's
// variables), ArgumentError for duplicates, MissingArgumentError naming every variable left
// without a value. Names starting with "gpgpu_" are the library's own and not bindable.
ResolvedArgs resolve_args(const ProgramInterface& interface, const Args& args,
                          const std::string& label, bool outputs_required);

// Throws TypeMismatchError / SizeMismatchError if `arg` cannot set `uniform`.
void check_uniform(const UniformVariable& uniform, const NamedArg& arg, const std::string& label);

// The host element count of an array argument in elements of `type` (a vec3 array of 12
// floats has 4). Throws SizeMismatchError if it is not a whole number of elements.
std::size_t whole_elements(const NamedArg& arg, const GlslType& type, const std::string& label,
                           const char* what);
// Throws TypeMismatchError unless the host element type is `type`'s.
void check_element_type(const NamedArg& arg, const GlslType& type, const std::string& label,
                        const char* what);

}  // namespace gpgpu::detail
