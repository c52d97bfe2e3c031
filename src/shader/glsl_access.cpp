#include "shader/glsl_access.hpp"

#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "gpgpu/error.hpp"
#include "shader/glsl_tokens.hpp"

namespace gpgpu::detail {

namespace {

// The memory qualifiers among tokens [first, last).
MemoryAccess access_of(const std::vector<std::string>& t, std::size_t first, std::size_t last) {
  bool read_only = false, write_only = false;
  for (std::size_t i = first; i < last; ++i) {
    read_only |= t[i] == "readonly";
    write_only |= t[i] == "writeonly";
  }
  if (read_only && !write_only) return MemoryAccess::ReadOnly;
  if (write_only && !read_only) return MemoryAccess::WriteOnly;
  return MemoryAccess::ReadWrite;
}

bool is_image_type(const std::string& token) {
  for (const char* prefix : {"image", "iimage", "uimage"}) {
    const std::string p = prefix;
    if (token.size() > p.size() && token.compare(0, p.size(), p) == 0 &&
        std::isdigit(static_cast<unsigned char>(token[p.size()]))) {
      return true;
    }
  }
  return false;
}

// Storage blocks by block name and image uniforms by variable name, with their access.
struct Declared {
  std::map<std::string, MemoryAccess> blocks, images;
};

void read_statement(const std::vector<std::string>& t, std::size_t first, std::size_t last,
                    Declared& d) {
  for (std::size_t i = first; i < last; ++i) {
    // [qualifiers] buffer Name { ... }
    if (t[i] == "buffer" && i + 2 < last && t[i + 2] == "{") {
      d.blocks[t[i + 1]] = access_of(t, first, i);
      return;
    }
    // [qualifiers] uniform [qualifiers] imageND name [, name ...]
    if (is_image_type(t[i])) {
      const MemoryAccess access = access_of(t, first, i);
      for (std::size_t j = i + 1; j < last; ++j) {
        if (t[j] != "," && t[j] != "[" && t[j] != "]" &&
            !std::isdigit(static_cast<unsigned char>(t[j][0]))) {
          d.images[t[j]] = access;
        }
      }
      return;
    }
  }
}

}  // namespace

void read_declared_access(std::string_view source, ProgramInterface& interface) {
  Declared d;
  try {
    const auto t = active_tokens(source);
    for_each_global_statement(
        t, [&](std::size_t first, std::size_t last) { read_statement(t, first, last, d); });
  } catch (const Error&) {
    // a conditional the reader cannot evaluate (the driver could): all read and written
  }
  for (auto& b : interface.storage_blocks) {
    const auto it = d.blocks.find(b.name);
    b.access = it == d.blocks.end() ? MemoryAccess::ReadWrite : it->second;
  }
  for (auto& u : interface.uniforms) {
    if (!u.type.is_image) continue;
    const auto it = d.images.find(u.name);
    u.access = it == d.images.end() ? MemoryAccess::ReadWrite : it->second;
  }
}

}  // namespace gpgpu::detail
