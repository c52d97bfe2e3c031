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
// GL_TIME_ELAPSED query is active. A leaked name is visible on drivers that hand out the
// lowest free name again (Mesa does): the next name made is the timer's, not a new one.
TEST(Internals, GpuTimerFreesItsQueryWhenStartingFails) {
  auto& ctx = test::context();
  ctx.make_current();
  const auto& state = *ctx.state();
  if (state.ext.get_query_object_ui64v == nullptr) GTEST_SKIP() << "no timer queries";
  GLuint outer = 0;
  glGenQueries(1, &outer);
  glBeginQuery(GL_TIME_ELAPSED_EXT, outer);
  ASSERT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  GLuint probe = 0, again = 0;
  glGenQueries(1, &probe);
  glDeleteQueries(1, &probe);
  glGenQueries(1, &again);
  glDeleteQueries(1, &again);
  if (again != probe) {
    glEndQuery(GL_TIME_ELAPSED_EXT);
    glDeleteQueries(1, &outer);
    GTEST_SKIP() << "this driver does not reuse query names, so a leak is invisible here";
  }
  EXPECT_THROW(gpgpu::detail::GpuTimer(state, true), gpgpu::GLError);
  glEndQuery(GL_TIME_ELAPSED_EXT);
  GLuint next = 0;
  glGenQueries(1, &next);
  EXPECT_EQ(next, probe) << "the failed timer's query was not deleted";
  glDeleteQueries(1, &next);
  glDeleteQueries(1, &outer);
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
}

// ContextOptions::debug promised debug messages as errors; they were only printed.
TEST(Internals, DebugMessagesOfHighSeverityBecomeErrors) {
  gpgpu::Context ctx({.debug = true});
  ctx.make_current();
  if (ctx.info().gl_minor < 2) GTEST_SKIP() << "no glDebugMessageCallback before GLES 3.2";
  // A GL error the driver also describes through the debug output: the message is thrown.
  glBindBuffer(GL_ARRAY_BUFFER, 987654);  // not a name from glGenBuffers: GL_INVALID_OPERATION
  try {
    gpgpu::detail::check_gl("glBindBuffer(987654)");
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
