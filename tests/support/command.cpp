#include "command.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

namespace gpgpu::test {

CommandResult run_command(const std::string& program, const std::string& arguments,
                          const std::filesystem::path& log) {
  const std::string command = program + " " + arguments + " > " + log.string() + " 2>&1";
  const int status = std::system(command.c_str());
  std::string output;
  {
    std::ifstream in(log);
    output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::filesystem::remove(log);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace gpgpu::test
