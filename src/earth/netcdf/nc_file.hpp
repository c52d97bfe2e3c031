// Internal: a NetCDF dataset handle that closes itself, and every libnetcdf call checked: a
// status other than NC_NOERR becomes gpgpu::Error naming the file, what was being done and
// libnetcdf's own message.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <netcdf.h>

namespace gpgpu::earth::detail {

// Throws Error "<path>: <what>: <nc_strerror(status)>" unless status is NC_NOERR.
void nc_check(int status, const std::filesystem::path& path, std::string_view what);

// A finished file's bytes, as libnetcdf hands them over (malloc'd).
struct NcImage {
  std::unique_ptr<void, decltype(&std::free)> bytes{nullptr, &std::free};
  std::size_t size = 0;
};

class NcFile {
 public:
  // A new NetCDF-4 file held in memory (`name` for messages); close_to_memory() gives its
  // bytes. Writers use this: libnetcdf 4.9 with HDF5 1.10 crashes when it closes or aborts a
  // file whose disk write failed (reportopenobjects, then HDF5's exit handler), so no write
  // of theirs may touch the disk; TemporaryFile writes the bytes, checking every call.
  static NcFile create_in_memory(const std::filesystem::path& name, std::size_t initial_size);
  // An existing file, read-only.
  static NcFile open(const std::filesystem::path& path);

  NcFile() = default;
  ~NcFile();  // abandons the dataset if close() did not run (nc_abort: nothing is flushed)
  NcFile(NcFile&& other) noexcept;
  NcFile& operator=(NcFile&& other) noexcept;
  NcFile(const NcFile&) = delete;
  NcFile& operator=(const NcFile&) = delete;

  // Closes a file open for reading.
  void close();
  // Finishes a file made by create_in_memory() and returns its bytes.
  NcImage close_to_memory();
  bool is_open() const { return id_ >= 0; }
  int id() const { return id_; }
  const std::filesystem::path& path() const { return path_; }
  void check(int status, std::string_view what) const { nc_check(status, path_, what); }

  // Define mode.
  int define_dimension(const std::string& name, std::size_t length);
  int define_variable(const std::string& name, nc_type type, const std::vector<int>& dimensions);
  void put_attribute(int var, const std::string& name, const std::string& text);
  void put_attribute(int var, const std::string& name, int value);
  void put_attribute(int var, const std::string& name, double value);
  void end_definitions();

  // Reading. A missing name or a wrong type throws FormatError naming it.
  int find_variable(const std::string& name) const;
  std::size_t dimension_length(const std::string& name) const;
  std::vector<std::size_t> variable_shape(int var) const;
  std::string text_attribute(int var, const std::string& name) const;
  double number_attribute(int var, const std::string& name) const;
  bool has_attribute(int var, const std::string& name) const;

 private:
  NcFile(int id, std::filesystem::path path) : id_(id), path_(std::move(path)) {}
  int id_ = -1;
  std::filesystem::path path_;
};

}  // namespace gpgpu::earth::detail
