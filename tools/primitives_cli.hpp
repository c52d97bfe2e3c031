// Shared by the primitives' commands (reduce, scan, sort, argsort, histogram): reading the
// input .npy into a Buffer, writing outputs atomically, the common options.
#pragma once

#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

#include "gpgpu/buffer.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/npy.hpp"
#include "gpgpu/primitives.hpp"

namespace gpgpu::cli {

struct PrimitiveInput {
  npy::Array array;
  Buffer buffer;  // empty for a zero-length array
  std::size_t count = 0;
};

// Adds IN.npy (required, existing), -o/--out (required unless out_optional) and -d/--device.
struct PrimitiveFiles {
  std::string input;
  std::string output;
  std::string device = "auto";
};
void add_file_options(CLI::App& sub, PrimitiveFiles& files, bool out_optional);
// "--op": sum, product, min, max.
void add_op_option(CLI::App& sub, std::string& op);

PrimitiveInput load_input(const Context& ctx, const std::string& path);

// Writes the .npy to a temporary file beside `path`, then renames it over `path`: a reader
// never sees a half-written file, and a failure leaves any previous file as it was.
void save_atomically(const std::filesystem::path& path, const npy::Array& array);

Op op_from_name(const std::string& name);

}  // namespace gpgpu::cli
