// Runs a program as a user would from a shell, for the tests of the `gpgpu` command-line tool.
#pragma once

#include <filesystem>
#include <string>

namespace gpgpu::test {

struct CommandResult {
  int status;          // the exit code, or -1 when the program did not exit normally
  std::string output;  // stdout and stderr together, in the order they were written
};

// Runs `program arguments` through /bin/sh with both streams redirected into `log`, which is
// read back and removed (a file rather than a pipe, so a program that writes a lot cannot
// block on a full pipe while we wait for it).
CommandResult run_command(const std::string& program, const std::string& arguments,
                          const std::filesystem::path& log);

}  // namespace gpgpu::test
