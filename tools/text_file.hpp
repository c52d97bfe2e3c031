// Files the commands write whole (JSON, CSV, gnuplot data, saved fields): through a temporary
// and a rename, so that a reader never sees half a file and a failed write leaves the old one.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>

namespace gpgpu::cli {

// `write` fills the temporary (opened in binary mode); `what` names the command in errors.
void write_file(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write,
                const std::string& what = "");
void write_text(const std::filesystem::path& path, const std::string& text);

}  // namespace gpgpu::cli
