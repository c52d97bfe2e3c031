// Checked libnetcdf calls (nc_file.hpp).
#include "nc_file.hpp"

#include <utility>

#include <fmt/format.h>
#include <netcdf_mem.h>

#include "gpgpu/error.hpp"

namespace gpgpu::earth::detail {

void nc_check(int status, const std::filesystem::path& path, std::string_view what) {
  if (status == NC_NOERR) return;
  throw Error(fmt::format("{}: {}: {} (libnetcdf error {})", path.string(), what,
                          nc_strerror(status), status));
}

NcFile NcFile::create_in_memory(const std::filesystem::path& name, std::size_t initial_size) {
  int id = -1;
  nc_check(nc_create_mem(name.c_str(), NC_NETCDF4, initial_size, &id), name,
           "cannot create the file in memory");
  return NcFile(id, name);
}

NcFile NcFile::open(const std::filesystem::path& path) {
  int id = -1;
  nc_check(nc_open(path.c_str(), NC_NOWRITE, &id), path, "cannot open it as NetCDF");
  return NcFile(id, path);
}

NcFile::~NcFile() {
  if (id_ >= 0) nc_abort(id_);
}

NcFile::NcFile(NcFile&& other) noexcept
    : id_(std::exchange(other.id_, -1)), path_(std::move(other.path_)) {}

NcFile& NcFile::operator=(NcFile&& other) noexcept {
  if (this != &other) {
    if (id_ >= 0) nc_abort(id_);
    id_ = std::exchange(other.id_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

void NcFile::close() {
  // The handle is gone whatever nc_close says: a failed close must not be aborted again.
  const int id = std::exchange(id_, -1);
  check(nc_close(id), "cannot close the file");
}

NcImage NcFile::close_to_memory() {
  const int id = std::exchange(id_, -1);
  NC_memio memio{};
  const int status = nc_close_memio(id, &memio);
  NcImage image;
  image.bytes.reset(memio.memory);  // freed here even when the close failed
  image.size = memio.size;
  check(status, "cannot finish the file");
  return image;
}

int NcFile::define_dimension(const std::string& name, std::size_t length) {
  int dim = -1;
  check(nc_def_dim(id_, name.c_str(), length, &dim), "cannot define dimension " + name);
  return dim;
}

int NcFile::define_variable(const std::string& name, nc_type type,
                            const std::vector<int>& dimensions) {
  int var = -1;
  check(nc_def_var(id_, name.c_str(), type, static_cast<int>(dimensions.size()), dimensions.data(),
                   &var),
        "cannot define variable " + name);
  return var;
}

void NcFile::put_attribute(int var, const std::string& name, const std::string& text) {
  check(nc_put_att_text(id_, var, name.c_str(), text.size(), text.c_str()),
        "cannot write attribute " + name);
}

void NcFile::put_attribute(int var, const std::string& name, int value) {
  check(nc_put_att_int(id_, var, name.c_str(), NC_INT, 1, &value),
        "cannot write attribute " + name);
}

void NcFile::put_attribute(int var, const std::string& name, double value) {
  check(nc_put_att_double(id_, var, name.c_str(), NC_DOUBLE, 1, &value),
        "cannot write attribute " + name);
}

void NcFile::end_definitions() {
  check(nc_enddef(id_), "cannot finish the definitions");
}

int NcFile::find_variable(const std::string& name) const {
  int var = -1;
  if (nc_inq_varid(id_, name.c_str(), &var) != NC_NOERR) {
    throw FormatError(fmt::format("{}: has no variable '{}' (not a file gpgpu earth wrote?)",
                                  path_.string(), name));
  }
  return var;
}

std::size_t NcFile::dimension_length(const std::string& name) const {
  int dim = -1;
  if (nc_inq_dimid(id_, name.c_str(), &dim) != NC_NOERR) {
    throw FormatError(fmt::format("{}: has no dimension '{}' (not a file gpgpu earth wrote?)",
                                  path_.string(), name));
  }
  std::size_t length = 0;
  check(nc_inq_dimlen(id_, dim, &length), "cannot read the length of dimension " + name);
  return length;
}

std::vector<std::size_t> NcFile::variable_shape(int var) const {
  int rank = 0;
  check(nc_inq_varndims(id_, var, &rank), "cannot read a variable's rank");
  std::vector<int> dims(static_cast<std::size_t>(rank));
  check(nc_inq_vardimid(id_, var, dims.data()), "cannot read a variable's dimensions");
  std::vector<std::size_t> shape;
  for (const int d : dims) {
    std::size_t length = 0;
    check(nc_inq_dimlen(id_, d, &length), "cannot read a dimension's length");
    shape.push_back(length);
  }
  return shape;
}

bool NcFile::has_attribute(int var, const std::string& name) const {
  std::size_t length = 0;
  return nc_inq_attlen(id_, var, name.c_str(), &length) == NC_NOERR;
}

namespace {

std::string owner(int var) {
  return var == NC_GLOBAL ? "global attribute" : "attribute";
}

}  // namespace

std::string NcFile::text_attribute(int var, const std::string& name) const {
  nc_type type = NC_NAT;
  std::size_t length = 0;
  if (nc_inq_att(id_, var, name.c_str(), &type, &length) != NC_NOERR || type != NC_CHAR) {
    throw FormatError(fmt::format("{}: has no text {} '{}'", path_.string(), owner(var), name));
  }
  std::string text(length, '\0');
  check(nc_get_att_text(id_, var, name.c_str(), text.data()), "cannot read attribute " + name);
  return text;
}

double NcFile::number_attribute(int var, const std::string& name) const {
  nc_type type = NC_NAT;
  std::size_t length = 0;
  if (nc_inq_att(id_, var, name.c_str(), &type, &length) != NC_NOERR || length != 1 ||
      type == NC_CHAR || type == NC_STRING) {
    throw FormatError(fmt::format("{}: has no numeric {} '{}'", path_.string(), owner(var), name));
  }
  double value = 0;
  check(nc_get_att_double(id_, var, name.c_str(), &value), "cannot read attribute " + name);
  return value;
}

}  // namespace gpgpu::earth::detail
