// Turns the CLI's NAME=file.npy inputs, --out NAME=file.npy outputs and --set NAME=values
// into gpgpu::Args for a kernel, sizing outputs from the kernel's declarations and the inputs.
// Shared by `gpgpu run` and `gpgpu trace`.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "gpgpu/arg.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/defines.hpp"
#include "gpgpu/kernel_variable.hpp"
#include "gpgpu/npy.hpp"
#include "output_files.hpp"

namespace gpgpu::cli {

struct KernelArgumentOptions {
  std::string kernel_path;            // for messages
  std::vector<std::string> inputs;    // NAME=file.npy
  std::vector<std::string> outputs;   // NAME=file.npy
  std::vector<std::string> uniforms;  // NAME=v1,v2,...
  std::vector<std::size_t> size;      // work items: N, or X,Y[,Z]
  std::vector<std::size_t> groups;    // work groups X[,Y[,Z]]
  bool row_major = false;
  bool unchecked_size = false;  // allow --size past the longest array
};

class KernelArguments {
 public:
  KernelArguments(const std::vector<KernelVariable>& variables,
                  const KernelArgumentOptions& options);
  KernelArguments(const KernelArguments&) = delete;
  KernelArguments& operator=(const KernelArguments&) = delete;
  const Args& args() const { return args_; }
  // Writes every --out array to its reserved temporary file (files.commit() moves them
  // into place); report_outputs() then says so on stdout.
  void save_outputs(const OutputFiles& files) const;
  void report_outputs() const;

 private:
  std::map<std::string, npy::Array> arrays_;
  std::vector<std::pair<std::string, std::string>> outputs_;
  std::vector<std::vector<std::uint32_t>> uniform_storage_;
  Args args_;
};

// The NAME=file.npy pairs of --out options (ArgumentError for a malformed one).
std::vector<std::pair<std::string, std::string>> output_assignments(
    const std::vector<std::string>& texts);

// Reads a kernel file; gpgpu::Error if it cannot.
std::string read_text(const std::string& path);
// "-D NAME=VALUE" options as Defines.
Defines parse_defines(const std::vector<std::string>& texts);

}  // namespace gpgpu::cli
