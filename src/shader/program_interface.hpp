// Internal: a linked program's interface, learned by introspection (not by parsing text).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "shader/glsl_type.hpp"

namespace gpgpu::detail {

// Which stages of a program use a variable or block (GL_REFERENCED_BY_*_SHADER).
enum StageBits : unsigned { kVertexStage = 1, kFragmentStage = 2, kComputeStage = 4 };

// How a shader declares access to a storage block or an image (its memory qualifiers, read
// from the source: glsl_access.hpp).
enum class MemoryAccess { ReadWrite, ReadOnly, WriteOnly };

struct UniformVariable {
  std::string name;  // without a trailing "[0]"
  GlslType type;
  int array_size = 1;  // 1 for a non-array
  bool is_array = false;
  GLint location = -1;
  unsigned stages = 0;                            // StageBits
  MemoryAccess access = MemoryAccess::ReadWrite;  // images: readonly / writeonly
};

// A shader storage block. Host arrays bind to blocks whose only member is an array
// ("buffer A { float a[]; }"); other blocks take device Buffers.
struct StorageBlock {
  std::string name;         // the block name, "A"
  std::string member_name;  // "a" when the block has exactly one member, else empty
  GLint binding = 0;
  std::int64_t fixed_size = 0;  // GL_BUFFER_DATA_SIZE: bytes before any runtime array
  bool single_array = false;    // exactly one member, an array of a known type
  GlslType element;             // that member's element type
  std::int64_t array_size = 0;  // 0 for a runtime-sized array
  std::int64_t offset = 0;
  std::int64_t array_stride = 0;
  std::int64_t matrix_stride = 0;
  bool row_major = false;
  std::vector<std::string> members;               // all member names, for messages
  unsigned stages = 0;                            // StageBits
  MemoryAccess access = MemoryAccess::ReadWrite;  // readonly / writeonly
};

// A vertex-shader input or a vertex/fragment output.
struct StageVariable {
  std::string name;
  GlslType type;
  int array_size = 1;
  GLint location = -1;
};

struct ProgramInterface {
  std::vector<UniformVariable> uniforms;  // default-block uniforms only
  std::vector<StorageBlock> storage_blocks;
  std::vector<StageVariable> inputs;        // GL_PROGRAM_INPUT (vertex attributes)
  std::vector<StageVariable> outputs;       // GL_PROGRAM_OUTPUT of the last stage
  std::vector<std::string> uniform_blocks;  // named uniform blocks (gpgpu rejects them)
  int local_size[3] = {0, 0, 0};            // compute programs only

  const UniformVariable* find_uniform(const std::string& name) const;
  // By block name or by the single member's name.
  const StorageBlock* find_block(const std::string& name) const;
  // Every name a user may bind, with its declaration, for "unknown argument" messages.
  std::string describe() const;
};

ProgramInterface introspect(GLuint program, bool is_compute);

}  // namespace gpgpu::detail
