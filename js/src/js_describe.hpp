// JSON descriptions handed to gpgpu.js: a device's info, a kernel's variables.
#pragma once

#include <string>
#include <vector>

#include <gpgpu/context.hpp>
#include <gpgpu/kernel_variable.hpp>

namespace gpgpu::web {

std::string info_json(const Context& context);
std::string variables_json(const std::vector<KernelVariable>& variables);

}  // namespace gpgpu::web
