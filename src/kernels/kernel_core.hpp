// Internal: the run skeleton the three kernel paths share.
//
//   validate  resolve_args and the pure checks of binding/ (no GL call): a bad call throws
//             before anything runs, and the caller's arrays are untouched;
//   plan      each path works out its launch (groups, vertices, the grid) and which host
//             arrays go up and come back, still without GL;
//   upload    RunTransfers (transfer/run_transfers.hpp) places host arrays on the device through
//   the Context's transfer
//             engine (pooled device buffers, staged copies);
//   launch    the path's own GL: a dispatch, a draw with transform feedback, a draw into a
//             framebuffer; uniforms are set by set_uniforms;
//   commit    RunTransfers queues the read-backs into the caller's arrays and either waits
//             for them (run) or hands back a PendingRun (run_async).
// Any kernel with label() and last_gpu_ns() is a gpgpu::TimedKernel (profiler.hpp), so
// Profiler::record takes each of them. Per-run GL objects are gone: device memory comes from the
// pool, and each kernel keeps its vertex array, transform-feedback object, framebuffer and queries
// for all its runs.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "binding/binding.hpp"
#include "gl/gl.hpp"
#include "gpgpu/pending_run.hpp"
#include "transfer/run_transfers.hpp"

namespace gpgpu::detail {

struct ContextState;

// Sets every (checked) uniform of a resolved call on the program in use; textures take
// consecutive texture units from 0.
void set_uniforms(const ResolvedArgs& resolved, const std::string& label);
// Sets one (checked) uniform. Sampler and image uniforms take textures, given consecutive
// texture units from `next_texture_unit`.
void set_uniform(const UniformVariable& uniform, const NamedArg& arg, GLuint& next_texture_unit,
                 const std::string& label);
// Sets a library uniform (gpgpu_count...) if the program uses it.
void set_internal_uint(const ProgramInterface& interface, const char* name, GLuint value);
void set_internal_int(const ProgramInterface& interface, const char* name, GLint value);
// Checks that the texture fits the sampler (dimensions, float/int/uint), binds it to `unit`
// and points the sampler uniform at that unit.
void bind_texture_to_sampler(const Texture& texture, const UniformVariable& sampler, GLuint unit,
                             const std::string& label);
// Attaches the Buffer of a gpgpu::texels argument to a per-unit buffer texture on `unit` and
// points the sampler at it.
void bind_buffer_texels(const Arg& arg, const UniformVariable& sampler, GLuint unit,
                        const std::string& label);
// Detaches every Buffer attached by bind_buffer_texels (so a released Buffer's memory is
// not kept alive by a view). Called after each run.
void detach_buffer_texels(ContextState& state);
// Binds the texture's level 0 to the image unit the shader declares (layout(binding)).
void bind_texture_to_image(const Texture& texture, const UniformVariable& image, Access access,
                           const std::string& label);

// The GL halves of the above, shared with recorded sequences (src/sequence/), which check
// once when recording and then only bind:
// glUniform*v of `count` elements of the uniform's type from `data` (row-major matrices
// transposed); throws TypeMismatchError for a type gpgpu cannot set.
void write_uniform(const UniformVariable& uniform, GLsizei count, bool row_major, const void* data,
                   const std::string& label);
// How many elements of its type a uniform takes (its active array size, or 1).
GLsizei uniform_elements(const UniformVariable& uniform);
// Binds `texture` (a GL name) to texture unit `unit` as `target`; leaves unit 0 active.
void bind_texture_unit(GLuint unit, GLenum target, GLuint texture);
GLenum texture_target(const Texture& texture);
// The buffer texture of `unit` (made on first use) viewing `buffer` in `format`; detached by
// detach_buffer_texels.
void attach_buffer_view(ContextState& state, GLuint unit, GLenum format, GLuint buffer);
// The texel format of gpgpu::texels with `components` (1 or 4) of `type`.
GLenum buffer_texel_format(ElementType type, std::size_t components);
// The image unit the shader declares for `image` (layout(binding = N)).
GLuint image_unit(GLuint program, const UniformVariable& image);
GLenum image_access(Access access);

}  // namespace gpgpu::detail
