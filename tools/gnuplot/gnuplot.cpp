#include "gnuplot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <vector>

#include <fmt/format.h>

extern char** environ;

namespace gpgpu::gnuplot {

namespace {

namespace fs = std::filesystem;

// Finds an executable on PATH, as a shell would, without starting one.
std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const auto candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

// Runs `program args...` with stdout and stderr in `log` and waits; returns its exit status
// (-1 when it could not start or did not exit normally).
int run_program(const std::string& program, const std::vector<std::string>& args,
                const fs::path& log) {
  std::vector<std::string> storage{program};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

std::string draw(const fs::path& dir, const std::string& script) {
  const std::string gnuplot = find_on_path("gnuplot");
  if (gnuplot.empty()) {
    return fmt::format(
        "gnuplot not found on PATH: no PNGs (install gnuplot, e.g. Debian's gnuplot-nox, and run "
        "`gnuplot {}` in {})",
        script, dir.string());
  }
  const auto absolute = fs::absolute(dir);
  std::string quoted;  // inside gnuplot's single quotes, a quote is written twice
  for (char c : absolute.string()) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  const auto log = absolute / (fs::path(script).stem().string() + ".log");
  const int status =
      run_program(gnuplot, {"-e", "cd '" + quoted + "'", (absolute / script).string()}, log);
  if (status != 0) return fmt::format("gnuplot failed (exit {}); see {}", status, log.string());
  fs::remove(log);
  return {};
}

}  // namespace gpgpu::gnuplot
