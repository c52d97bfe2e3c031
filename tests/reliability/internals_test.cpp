// Regression tests of internal pieces (they include headers from src/): the GPU timer's
// query on a failing start, and debug messages becoming errors.
#include <gtest/gtest.h>

#include <string>

#include "gl/context_state.hpp"
#include "gl/gpu_timer.hpp"
#include "gpgpu/error.hpp"
#include "test_support.hpp"

namespace {

namespace test = gpgpu::test;

// GpuTimer's constructor made its query and then called glBeginQuery; when that threw, the
// destructor never ran and the query leaked. Provoked by starting it while another
// GL_TIME_ELAPSED query is active. Whether the timer's query still exists afterwards is asked
// with glObjectLabel (GL_INVALID_VALUE for a name that is no object); the timer's name is the
// next one the driver hands out, which the test learns first.
TEST(Internals, GpuTimerFreesItsQueryWhenStartingFails) {
  auto& ctx = test::context();
  ctx.make_current();
  const auto& state = *ctx.state();
  if (state.ext.get_query_object_ui64v == nullptr) GTEST_SKIP() << "no timer queries";
  if (ctx.info().gl_minor < 2) GTEST_SKIP() << "glObjectLabel is core from GLES 3.2";
  GLuint outer = 0, first = 0, second = 0;
  glGenQueries(1, &outer);
  glBeginQuery(GL_TIME_ELAPSED_EXT, outer);
  glGenQueries(1, &first);
  glGenQueries(1, &second);
  glDeleteQueries(1, &first);
  glDeleteQueries(1, &second);
  ASSERT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  auto exists = [](GLuint name) {
    glObjectLabel(GL_QUERY, name, -1, "probe");
    return glGetError() == GL_NO_ERROR;
  };
  ASSERT_TRUE(exists(outer)) << "glObjectLabel cannot tell live queries here";
  ASSERT_FALSE(exists(first)) << "glObjectLabel cannot tell deleted queries here";
  // Names come in sequence on this driver (else the timer's name is unknown).
  if (second != first + 1) {
    glEndQuery(GL_TIME_ELAPSED_EXT);
    glDeleteQueries(1, &outer);
    GTEST_SKIP() << "query names are not handed out in sequence here";
  }
  const GLuint timers_name = second + 1;
  EXPECT_THROW(gpgpu::detail::GpuTimer(state, true), gpgpu::GLError);
  EXPECT_FALSE(exists(timers_name)) << "the failed timer's query " << timers_name << " leaked";
  glEndQuery(GL_TIME_ELAPSED_EXT);
  glDeleteQueries(1, &outer);
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
}

// ContextOptions::debug promised debug messages as errors; they were only printed.
TEST(Internals, DebugMessagesOfHighSeverityBecomeErrors) {
  gpgpu::Context ctx({.debug = true});
  ctx.make_current();
  if (ctx.info().gl_minor < 2) GTEST_SKIP() << "no glDebugMessageCallback before GLES 3.2";
  // A GL error the driver also describes through the debug output: the message is thrown.
  glEnable(0x7FFF);  // no such capability: GL_INVALID_ENUM, described by Mesa's debug output
  try {
    gpgpu::detail::check_gl("glEnable(0x7FFF)");
    ADD_FAILURE() << "no error was thrown";
  } catch (const gpgpu::GLError& e) {
    EXPECT_NE(std::string(e.what()).find("the driver said:"), std::string::npos) << e.what();
  }
  // A high-severity message without a GL error is thrown by the next check as a DriverError.
  gpgpu::detail::note_debug_error("a message of high severity");
  try {
    gpgpu::detail::check_gl("glFinish()");
    ADD_FAILURE() << "no error was thrown";
  } catch (const gpgpu::DriverError& e) {
    EXPECT_NE(std::string(e.what()).find("a message of high severity"), std::string::npos)
        << e.what();
  }
  gpgpu::detail::check_gl("nothing pending");  // reported once, then cleared
}

}  // namespace
