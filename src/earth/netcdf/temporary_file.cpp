// TemporaryFile (temporary_file.hpp): POSIX calls, every result checked.
#include "temporary_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::earth::detail {

namespace fs = std::filesystem;

namespace {

fs::path temporary_beside(const fs::path& target) {
  static std::atomic<unsigned> counter{0};
  return target.parent_path() /
         fmt::format(".{}.tmp-{}-{}", target.filename().string(), ::getpid(), counter.fetch_add(1));
}

std::string system_reason(int error) {
  return std::error_code(error, std::generic_category()).message();
}

}  // namespace

TemporaryFile::TemporaryFile(const fs::path& target)
    : target_(target), temporary_(temporary_beside(target)) {
  fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    const int error = errno;
    throw Error(fmt::format("NetCDF output {}: cannot write a file in {} ({})", target.string(),
                            fs::absolute(target).parent_path().string(), system_reason(error)));
  }
}

TemporaryFile::~TemporaryFile() {
  discard();
}

void TemporaryFile::discard() noexcept {
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
  ::unlink(temporary_.c_str());
}

void TemporaryFile::commit(const void* bytes, std::size_t size) {
  const auto fail = [&](const char* step, int error) {
    discard();
    throw Error(fmt::format("NetCDF output {}: {} failed ({}); no file was written",
                            target_.string(), step, system_reason(error)));
  };
  const auto* p = static_cast<const char*>(bytes);
  for (std::size_t done = 0; done < size;) {
    const ::ssize_t n = ::write(fd_, p + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    // A write of 0 bytes with no error would loop forever: treat it as a full disk.
    if (n <= 0) fail("writing the file", n < 0 ? errno : ENOSPC);
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd_) != 0) fail("flushing the file to disk", errno);
  const int fd = fd_;
  fd_ = -1;  // closed below whatever close says
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temporary_.c_str());
    throw Error(fmt::format("NetCDF output {}: closing the file failed ({}); no file was written",
                            target_.string(), system_reason(error)));
  }
  if (::rename(temporary_.c_str(), target_.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary_.c_str());
    throw Error(fmt::format("NetCDF output {}: renaming {} to it failed ({}); no file was written",
                            target_.string(), temporary_.string(), system_reason(error)));
  }
}

}  // namespace gpgpu::earth::detail
