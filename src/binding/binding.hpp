// Internal: matching named arguments to a program's introspected variables, checking them,
// and setting uniforms. Shared by the compute, transform-feedback and fragment kernels.
#pragma once

#include <string>
#include <vector>

#include "gpgpu/arg.hpp"
#include "shader/program_interface.hpp"

namespace gpgpu::detail {

struct ResolvedArgs {
  std::vector<std::pair<const UniformVariable*, const NamedArg*>> uniforms;  // incl. samplers/images
  std::vector<std::pair<const StorageBlock*, const NamedArg*>> blocks;
  std::vector<std::pair<const StageVariable*, const NamedArg*>> inputs;
  std::vector<std::pair<const StageVariable*, const NamedArg*>> outputs;
};

// Matches every argument to a variable. Throws UnknownArgumentError (listing the kernel's
// variables), ArgumentError for duplicates, MissingArgumentError naming every variable left
// without a value. Names starting with "gpgpu_" are the library's own and not bindable.
ResolvedArgs resolve_args(const ProgramInterface& interface, const Args& args,
                          const std::string& label, bool outputs_required);

// Throws TypeMismatchError / SizeMismatchError if `arg` cannot set `uniform`.
void check_uniform(const UniformVariable& uniform, const NamedArg& arg, const std::string& label);
// Sets a (checked) uniform on the program in use. Sampler and image uniforms take textures,
// given consecutive texture units from `next_texture_unit`.
void set_uniform(const UniformVariable& uniform, const NamedArg& arg, GLuint& next_texture_unit,
                 const std::string& label);
// Sets a library uniform (gpgpu_count...) if the program uses it.
void set_internal_uint(const ProgramInterface& interface, const char* name, GLuint value);

// The host element count of an array argument in elements of `type` (a vec3 array of 12
// floats has 4). Throws SizeMismatchError if it is not a whole number of elements.
std::size_t whole_elements(const NamedArg& arg, const GlslType& type, const std::string& label,
                           const char* what);
// Throws TypeMismatchError unless the host element type is `type`'s.
void check_element_type(const NamedArg& arg, const GlslType& type, const std::string& label,
                        const char* what);

}  // namespace gpgpu::detail
