// Minimal zip reading and writing for .npz files (no zip64, no encryption, no spanning).
#include "zip.hpp"

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "zlib_calls.hpp"

namespace gpgpu::nn::detail {

namespace {

constexpr std::uint32_t local_signature = 0x04034b50;
constexpr std::uint32_t central_signature = 0x02014b50;
constexpr std::uint32_t end_signature = 0x06054b50;

void put16(std::vector<std::byte>& out, std::uint32_t v) {
  out.push_back(static_cast<std::byte>(v & 0xFF));
  out.push_back(static_cast<std::byte>((v >> 8) & 0xFF));
}
void put32(std::vector<std::byte>& out, std::uint32_t v) {
  put16(out, v & 0xFFFF);
  put16(out, v >> 16);
}
void put_name(std::vector<std::byte>& out, const std::string& name) {
  for (char c : name) out.push_back(static_cast<std::byte>(c));
}

class Reader {
 public:
  Reader(std::span<const std::byte> bytes, const std::string& origin)
      : bytes_(bytes), origin_(origin) {}
  std::uint32_t u16(std::size_t at) const {
    need(at, 2);
    return std::to_integer<std::uint32_t>(bytes_[at]) |
           (std::to_integer<std::uint32_t>(bytes_[at + 1]) << 8);
  }
  std::uint32_t u32(std::size_t at) const { return u16(at) | (u16(at + 2) << 16); }
  void need(std::size_t at, std::size_t n) const {
    if (at > bytes_.size() || n > bytes_.size() - at) {
      throw FormatError(fmt::format("{}: the zip archive is truncated (needs bytes {}..{} of {})",
                                    origin_, at, at + n, bytes_.size()));
    }
  }
  std::span<const std::byte> slice(std::size_t at, std::size_t n) const {
    need(at, n);
    return bytes_.subspan(at, n);
  }
  std::size_t size() const { return bytes_.size(); }

 private:
  std::span<const std::byte> bytes_;
  const std::string& origin_;
};

}  // namespace

std::vector<std::byte> write_zip(const std::vector<ZipEntry>& entries) {
  std::vector<std::byte> out, central;
  for (const auto& e : entries) {
    if (e.data.size() > 0xFFFFFFF0ull || out.size() > 0xFFFFFFF0ull) {
      throw LimitError("npz: entries of 4 GiB or more need zip64, which is not written");
    }
    const auto offset = static_cast<std::uint32_t>(out.size());
    const std::uint32_t crc = crc_of(e.data);
    const auto size = static_cast<std::uint32_t>(e.data.size());
    const auto name_size = static_cast<std::uint32_t>(e.name.size());
    put32(out, local_signature);
    for (std::uint32_t v : {20u, 0u, 0u, 0u, 0x21u})
      put16(out, v);  // version, flags, stored, time, date
    put32(out, crc);
    put32(out, size);
    put32(out, size);
    put16(out, name_size);
    put16(out, 0);
    put_name(out, e.name);
    out.insert(out.end(), e.data.begin(), e.data.end());
    put32(central, central_signature);
    for (std::uint32_t v : {20u, 20u, 0u, 0u, 0u, 0x21u}) put16(central, v);
    put32(central, crc);
    put32(central, size);
    put32(central, size);
    put16(central, name_size);
    for (int i = 0; i < 4; ++i) put16(central, 0);  // extra, comment, disk, internal attributes
    put32(central, 0);                              // external attributes
    put32(central, offset);
    put_name(central, e.name);
  }
  const auto central_offset = static_cast<std::uint32_t>(out.size());
  const auto central_size = static_cast<std::uint32_t>(central.size());
  out.insert(out.end(), central.begin(), central.end());
  put32(out, end_signature);
  put16(out, 0);
  put16(out, 0);
  put16(out, static_cast<std::uint32_t>(entries.size()));
  put16(out, static_cast<std::uint32_t>(entries.size()));
  put32(out, central_size);
  put32(out, central_offset);
  put16(out, 0);
  return out;
}

std::vector<ZipEntry> read_zip(std::span<const std::byte> archive, const std::string& origin) {
  Reader r(archive, origin);
  if (r.size() < 22)
    throw FormatError(fmt::format("{}: too short for a zip archive ({} bytes)", origin, r.size()));
  std::size_t end = r.size() - 22;
  const std::size_t lowest = r.size() > 22 + 65535 ? r.size() - 22 - 65535 : 0;
  while (r.u32(end) != end_signature) {
    if (end == lowest)
      throw FormatError(fmt::format("{}: not a zip archive (no end-of-directory record)", origin));
    --end;
  }
  const std::size_t count = r.u16(end + 10);
  std::size_t at = r.u32(end + 16);
  std::vector<ZipEntry> entries;
  for (std::size_t i = 0; i < count; ++i) {
    if (r.u32(at) != central_signature) {
      throw FormatError(fmt::format("{}: central directory entry {} is corrupt", origin, i));
    }
    const std::uint32_t flags = r.u16(at + 8), method = r.u16(at + 10), crc = r.u32(at + 16);
    const std::uint32_t compressed = r.u32(at + 20), size = r.u32(at + 24);
    const std::size_t name_size = r.u16(at + 28), extra = r.u16(at + 30), comment = r.u16(at + 32);
    const std::size_t local = r.u32(at + 42);
    const auto name_bytes = r.slice(at + 46, name_size);
    ZipEntry e;
    e.name.assign(reinterpret_cast<const char*>(name_bytes.data()), name_size);
    at += 46 + name_size + extra + comment;
    const std::string what = fmt::format("{}: entry {}", origin, e.name);
    if ((flags & 1u) != 0) throw FormatError(what + " is encrypted");
    if (compressed == 0xFFFFFFFFu || size == 0xFFFFFFFFu)
      throw FormatError(what + " needs zip64, which is not read");
    if (r.u32(local) != local_signature) throw FormatError(what + ": bad local header");
    const std::size_t data_at = local + 30 + r.u16(local + 26) + r.u16(local + 28);
    const auto data = r.slice(data_at, compressed);
    if (method == 0) {
      if (compressed != size) throw FormatError(what + ": stored sizes disagree");
      e.data.assign(data.begin(), data.end());
    } else if (method == 8) {
      e.data = inflate_raw(data, size, what);
    } else {
      throw FormatError(fmt::format(
          "{} uses compression method {}; only stored (0) and deflate (8) are read", what, method));
    }
    if (crc_of(e.data) != crc) {
      throw FormatError(what + ": CRC-32 mismatch (the archive is corrupt)");
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

}  // namespace gpgpu::nn::detail
