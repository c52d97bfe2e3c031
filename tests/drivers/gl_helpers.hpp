// The GL objects the driver reproducers in this folder build alike (plain GL, no gpgpu):
// programs from GLSL sources, immutable 2D textures, a framebuffer of colour attachments and
// a draw that covers the viewport. Errors are not checked here: a reproducer's own check of
// the values it reads back fails where a step did.
#pragma once

#include <GLES3/gl31.h>

#include <initializer_list>
#include <utility>
#include <vector>

// A program linked from one shader per (kind, source).
inline GLuint link_program(std::initializer_list<std::pair<GLenum, const char*>> sources) {
  const GLuint program = glCreateProgram();
  std::vector<GLuint> shaders;
  for (const auto& [kind, source] : sources) {
    const GLuint shader = glCreateShader(kind);
    glShaderSource(shader, 1, &source, nullptr);
    glCompileShader(shader);
    glAttachShader(program, shader);
    shaders.push_back(shader);
  }
  glLinkProgram(program);
  for (const GLuint shader : shaders) glDeleteShader(shader);
  return program;
}

inline GLuint compute_program(const char* source) {
  return link_program({{GL_COMPUTE_SHADER, source}});
}

// An immutable one-level 2D texture, left bound to GL_TEXTURE_2D.
inline GLuint texture_2d(GLenum format, GLsizei width, GLsizei height) {
  GLuint texture = 0;
  glGenTextures(1, &texture);
  glBindTexture(GL_TEXTURE_2D, texture);
  glTexStorage2D(GL_TEXTURE_2D, 1, format, width, height);
  return texture;
}

// A framebuffer, left bound to GL_FRAMEBUFFER, with each (colour attachment, texture) given;
// the draw buffers are the caller's.
inline GLuint framebuffer_of(std::initializer_list<std::pair<GLenum, GLuint>> attachments) {
  GLuint framebuffer = 0;
  glGenFramebuffers(1, &framebuffer);
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
  for (const auto& [point, texture] : attachments) {
    glFramebufferTexture2D(GL_FRAMEBUFFER, point, GL_TEXTURE_2D, texture, 0);
  }
  return framebuffer;
}

// A fragment shader run once per pixel of the viewport: one triangle that covers it, made by
// the vertex shader from gl_VertexID (no vertex attributes, an empty vertex array).
struct FullScreenDraw {
  GLuint program = 0;
  GLuint vertex_array = 0;

  explicit FullScreenDraw(const char* fragment_source) {
    program = link_program({{GL_VERTEX_SHADER, R"(#version 310 es
void main() {
  gl_Position = vec4(float((gl_VertexID & 1) * 4 - 1), float((gl_VertexID & 2) * 2 - 1), 0.0, 1.0);
})"},
                            {GL_FRAGMENT_SHADER, fragment_source}});
    glGenVertexArrays(1, &vertex_array);
  }
  void draw() const {
    glUseProgram(program);
    glBindVertexArray(vertex_array);
    glDrawArrays(GL_TRIANGLES, 0, 3);
  }
};
