// write_text (text_file.hpp).
#include "text_file.hpp"

#include <fstream>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::cli {

void write_text(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out) throw Error(fmt::format("cannot write {}", temporary.string()));
    out << text;
    if (!out) throw Error(fmt::format("failed writing {}", temporary.string()));
  }
  std::filesystem::rename(temporary, path);
}

}  // namespace gpgpu::cli
