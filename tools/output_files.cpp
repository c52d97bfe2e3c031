#include "output_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::cli {

namespace fs = std::filesystem;

namespace {

std::string why(int error) {
  return std::strerror(error);
}

// A temporary file beside `destination` (same directory, so the rename is atomic), made
// with O_EXCL so that it is ours.
fs::path create_temporary(const std::string& option, const fs::path& destination) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    fs::path temporary = destination;
    temporary += fmt::format(".gpgpu-{}-{}.tmp", ::getpid(), attempt);
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::close(fd);
      return temporary;
    }
    if (errno != EEXIST) {
      throw Error(fmt::format("{} {}: cannot write there: {} (checked before running)", option,
                              destination.string(), why(errno)));
    }
  }
  throw Error(
      fmt::format("{} {}: cannot make a temporary file beside it", option, destination.string()));
}

}  // namespace

void OutputFiles::reserve(const std::string& option, const fs::path& destination) {
  if (destination.empty()) throw Error(fmt::format("{}: the output path is empty", option));
  const fs::path directory =
      destination.has_parent_path() ? destination.parent_path() : fs::path(".");
  std::error_code error;
  if (!fs::is_directory(directory, error)) {
    throw Error(fmt::format("{} {}: the directory '{}' does not exist (checked before running)",
                            option, destination.string(), directory.string()));
  }
  if (fs::is_directory(destination, error)) {
    throw Error(
        fmt::format("{} {}: that is a directory; give a file name", option, destination.string()));
  }
  for (const auto& file : files_) {
    if (fs::weakly_canonical(file.destination, error) == fs::weakly_canonical(destination, error)) {
      throw Error(fmt::format("{} and {} both write {}; give each output its own file", file.option,
                              option, destination.string()));
    }
  }
  files_.push_back({option, destination, create_temporary(option, destination)});
}

const fs::path& OutputFiles::temporary_path(const fs::path& destination) const {
  for (const auto& file : files_) {
    if (file.destination == destination) return file.temporary;
  }
  throw Error(fmt::format("internal: output {} was not reserved", destination.string()));
}

void OutputFiles::commit() {
  for (const auto& file : files_) {
    std::error_code error;
    fs::rename(file.temporary, file.destination, error);
    if (error) {
      throw Error(fmt::format("{} {}: cannot move the finished file into place: {}", file.option,
                              file.destination.string(), error.message()));
    }
  }
  committed_ = true;
}

OutputFiles::~OutputFiles() {
  for (const auto& file : files_) {
    std::error_code ignored;
    if (!committed_ || fs::exists(file.temporary, ignored)) fs::remove(file.temporary, ignored);
  }
}

}  // namespace gpgpu::cli
