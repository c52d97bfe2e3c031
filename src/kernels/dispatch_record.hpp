// Internal: a compute dispatch as a run would issue it, written down instead of issued, for
// recorded sequences (src/sequence/). ComputeKernel's run validates and plans exactly as
// always (binding/, the same checks and errors), then, while a DispatchSink captures the
// Context's runs, hands the sink a DispatchRecord instead of touching the GPU.
//
// What a record holds is what replay needs and nothing that can dangle: the program (shared),
// each Buffer and Texture through its Arg (which follows the object and sees it destroyed),
// with the GL name and size it had when recorded, and uniform values copied.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "binding/binding.hpp"
#include "gl/gl.hpp"
#include "gpgpu/arg.hpp"
#include "shader/program_interface.hpp"

namespace gpgpu::detail {

class Program;

// A storage block bound to a Buffer.
struct RecordedBlock {
  std::string name;  // the argument's name, for messages
  Arg buffer;        // follows the Buffer (Arg::buffer() is null once it is destroyed)
  GLuint binding = 0;
  GLuint gl_name = 0;  // the Buffer's GL name when recorded
  GLsizeiptr bytes = 0;
  MemoryAccess access = MemoryAccess::ReadWrite;
};

// A uniform's values, as glUniform*v takes them. Samplers get their texture unit here.
struct RecordedUniform {
  const UniformVariable* variable = nullptr;  // owned by the record's program
  GLsizei count = 1;                          // elements (uniform_elements)
  bool row_major = false;
  bool internal = false;  // gpgpu_count and the other library uniforms
  std::vector<std::uint32_t> words;
};

// A Texture for a sampler or an image, or a Buffer read through a buffer texture.
struct RecordedTexture {
  enum class Kind { Sampler, Image, BufferTexels };
  Kind kind = Kind::Sampler;
  std::string name;  // the uniform's name, for messages
  Arg object;        // the Texture, or the Buffer of gpgpu::texels
  GLuint gl_name = 0;
  GLuint unit = 0;    // texture unit (samplers, buffer texels) or image unit
  GLenum target = 0;  // GL_TEXTURE_2D / GL_TEXTURE_3D (samplers)
  GLenum format = 0;  // images: the texture's format; buffer texels: the view's
  GLboolean layered = GL_FALSE;
  MemoryAccess access = MemoryAccess::ReadOnly;  // samplers read; images as declared
};

struct DispatchRecord {
  std::shared_ptr<const Program> program;
  std::string label;  // the kernel's
  std::array<GLuint, 3> groups{1, 1, 1};
  std::vector<RecordedBlock> blocks;
  std::vector<RecordedUniform> uniforms;
  std::vector<RecordedTexture> textures;
};

// Receives the dispatches a Context's ComputeKernels would have run (ContextState::capture).
class DispatchSink {
 public:
  virtual ~DispatchSink() = default;
  virtual void add(DispatchRecord record) = 0;
};

// Everything a compute run checked and planned, written down. Throws ArgumentError for what
// a record cannot hold: host arrays and mapped HostBuffers (bind Buffers instead).
struct PlannedBlock {
  const StorageBlock* block;
  const NamedArg* arg;
  std::size_t bytes;
};
DispatchRecord record_dispatch(std::shared_ptr<const Program> program, const std::string& label,
                               const std::vector<PlannedBlock>& blocks,
                               const ResolvedArgs& resolved, std::array<GLuint, 3> groups);
// Adds a library uniform (gpgpu_count...) with `value` if the program uses it.
void record_internal_uint(DispatchRecord& record, const char* name, GLuint value);

}  // namespace gpgpu::detail
