// Internal: making GL objects owned by GlName (gpgpu/detail/gl_name.hpp), the one handle
// template for every GL object a Context's users hold: Buffer, Texture, HostBuffer, the
// per-kernel vertex arrays, transform-feedback objects, framebuffers and queries.
#pragma once

#include <cstddef>

#include "gl/context_state.hpp"
#include "gl/gl.hpp"
#include "gpgpu/detail/gl_name.hpp"

namespace gpgpu::detail {

using GlBuffer = GlName<GlKind::Buffer>;
using GlTexture = GlName<GlKind::Texture>;
using GlFramebuffer = GlName<GlKind::Framebuffer>;
using GlVertexArray = GlName<GlKind::VertexArray>;
using GlTransformFeedback = GlName<GlKind::TransformFeedback>;
using GlQuery = GlName<GlKind::Query>;

// A new name of `Kind` in `state`'s context, which must be current. Throws GLError.
template <GlKind Kind>
GlName<Kind> make_gl_name(ContextState& state);

// A GL buffer of `bytes`, filled from `data` if not null. Throws OutOfMemoryError.
GlBuffer make_gl_buffer(ContextState& state, std::size_t bytes, const void* data, GLenum usage);

}  // namespace gpgpu::detail
