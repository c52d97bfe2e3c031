// Text files the commands write whole (JSON, CSV, gnuplot data): through a temporary and a
// rename, so that a reader never sees half a file and a failed write leaves the old one.
#pragma once

#include <filesystem>
#include <string>

namespace gpgpu::cli {

void write_text(const std::filesystem::path& path, const std::string& text);

}  // namespace gpgpu::cli
