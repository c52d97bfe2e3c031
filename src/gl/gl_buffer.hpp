// Internal: raw GL buffer operations, shared by the transfer engine, Buffer and read-backs.
#pragma once

#include <cstddef>

#include "gl/gl.hpp"

namespace gpgpu::detail {

// `bytes` as a GL buffer size; throws LimitError when it does not fit GLsizeiptr.
GLsizeiptr checked_size(std::size_t bytes);
// A GL buffer of `bytes`, filled from `data` if not null; the caller owns the name (wrap it
// in a GlBuffer). Throws OutOfMemoryError.
GLuint create_gl_buffer(std::size_t bytes, const void* data, GLenum usage);
void write_gl_buffer(GLuint id, std::size_t offset, std::size_t bytes, const void* data);
// Reads back after making shader writes visible; waits for the GPU. (Defined by the
// platform: a mapping natively, glGetBufferSubData in WebGL2.)
void read_gl_buffer(GLuint id, std::size_t offset, std::size_t bytes, void* out);
// glCopyBufferSubData through the copy targets (unbound afterwards); offsets in bytes.
void copy_gl_buffer(GLuint source, std::size_t source_offset, GLuint destination,
                    std::size_t destination_offset, std::size_t bytes);

}  // namespace gpgpu::detail
