#include "cache/cache_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "gpgpu/cache.hpp"

namespace gpgpu::cache::detail {

namespace {

constexpr char magic[8] = {'G', 'P', 'G', 'P', 'U', 'C', 'F', '1'};
constexpr std::size_t header_size = sizeof(magic) + 4 + 4 + 4 + 8 + 8;

void put(std::vector<std::byte>& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::byte>(value >> (8 * i)));
}

std::uint64_t get(std::span<const std::byte> in, std::size_t at, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= std::to_integer<std::uint64_t>(in[at + i]) << (8 * i);
  return value;
}

std::string_view as_text(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::uint64_t checksum(std::string_view store, std::string_view key,
                       std::span<const std::byte> payload) {
  std::uint64_t h = hash64(store);
  h = hash64(key, h);
  return hash64(as_text(payload), h);
}

}  // namespace

std::vector<std::byte> encode_entry(const EntryIdentity& id, std::span<const std::byte> payload) {
  std::vector<std::byte> out;
  out.reserve(header_size + id.store.size() + id.key.size() + payload.size());
  for (char c : magic) out.push_back(static_cast<std::byte>(c));
  put(out, id.format_version, 4);
  put(out, id.store.size(), 4);
  put(out, id.key.size(), 4);
  put(out, payload.size(), 8);
  put(out, checksum(id.store, id.key, payload), 8);
  const auto append = [&](std::span<const std::byte> bytes) {
    out.insert(out.end(), bytes.begin(), bytes.end());
  };
  append(std::as_bytes(std::span(id.store.data(), id.store.size())));
  append(std::as_bytes(std::span(id.key.data(), id.key.size())));
  append(payload);
  return out;
}

Decoded decode_entry(const EntryIdentity& id, std::span<const std::byte> file) {
  if (file.size() < header_size) {
    return Unusable{fmt::format("truncated ({} bytes, shorter than the header)", file.size())};
  }
  if (std::memcmp(file.data(), magic, sizeof(magic)) != 0) {
    return Unusable{"not a gpgpu cache file (wrong magic bytes)"};
  }
  const auto version = static_cast<std::uint32_t>(get(file, 8, 4));
  const std::uint64_t store_length = get(file, 12, 4);
  const std::uint64_t key_length = get(file, 16, 4);
  const std::uint64_t payload_length = get(file, 20, 8);
  const std::uint64_t sum = get(file, 28, 8);
  const std::uint64_t body = file.size() - header_size;
  if (store_length > body || key_length > body - store_length ||
      payload_length != body - store_length - key_length) {
    return Unusable{fmt::format("truncated or padded ({} bytes where the header announces {})",
                                file.size(),
                                header_size + store_length + key_length + payload_length)};
  }
  // The lengths are checked against the file's size above, so they fit size_t (32 bits in
  // the browser build).
  const auto store_bytes = static_cast<std::size_t>(store_length);
  const auto key_bytes = static_cast<std::size_t>(key_length);
  const auto rest = file.subspan(header_size);
  const auto store = as_text(rest.first(store_bytes));
  const auto key = as_text(rest.subspan(store_bytes, key_bytes));
  const auto payload = rest.subspan(store_bytes + key_bytes);
  if (checksum(store, key, payload) != sum) return Unusable{"corrupt (checksum mismatch)"};
  if (store != id.store) return Unusable{fmt::format("belongs to store '{}'", store)};
  if (version != id.format_version) {
    return Unusable{
        fmt::format("format version {} (this gpgpu reads {})", version, id.format_version)};
  }
  if (key != id.key) return OtherKey{};
  return Payload{std::vector<std::byte>(payload.begin(), payload.end())};
}

bool read_whole_file(const std::filesystem::path& path, std::vector<std::byte>& bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bytes.clear();
  std::byte chunk[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof(chunk));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      ::close(fd);
      return got == 0;
    }
    bytes.insert(bytes.end(), chunk, chunk + got);
  }
}

void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  static std::atomic<unsigned> counter{0};
  const auto temporary = path.parent_path() / fmt::format(".{}.tmp-{}-{}", path.filename().string(),
                                                          ::getpid(), counter.fetch_add(1));
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), temporary.string());
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t wrote = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      const int error = wrote < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(temporary.c_str());
      throw std::system_error(error, std::generic_category(), temporary.string());
    }
    done += static_cast<std::size_t>(wrote);
  }
  if (::close(fd) != 0 || ::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    throw std::system_error(error, std::generic_category(), path.string());
  }
}

}  // namespace gpgpu::cache::detail
