// write_file and write_text (text_file.hpp).
#include "text_file.hpp"

#include <fstream>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::cli {

void write_file(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write,
                const std::string& what) {
  const std::string prefix = what.empty() ? "" : what + ": ";
  const std::filesystem::path temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(fmt::format("{}cannot write {}", prefix, temporary.string()));
    write(out);
    if (!out) throw Error(fmt::format("{}failed writing {}", prefix, temporary.string()));
  }
  std::filesystem::rename(temporary, path);
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  write_file(path, [&](std::ostream& out) { out << text; });
}

}  // namespace gpgpu::cli
