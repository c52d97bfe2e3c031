// Internal: the file format of one cache entry, and writing a file atomically.
//
// A file is a header, the key and the payload:
//   "GPGPUCF1"  magic and container version (8 bytes)
//   u32 store format version, u32 store name length, u32 key length, u64 payload length,
//   u64 checksum (hash64 over name, key and payload), then name, key and payload bytes.
// Integers are little-endian. The full key is kept so that two keys with the same file name
// (a hash collision) are told apart, and a file moved between stores is refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gpgpu::cache::detail {

struct EntryIdentity {
  std::string_view store;
  std::uint32_t format_version;
  std::string_view key;
};

std::vector<std::byte> encode_entry(const EntryIdentity& id, std::span<const std::byte> payload);

// What reading a file found.
struct Payload {
  std::vector<std::byte> bytes;
};
struct OtherKey {};  // a valid entry of this store, for another key (a hash collision)
struct Unusable {
  std::string reason;  // truncated, bad checksum, another store or version, ...
};
using Decoded = std::variant<Payload, OtherKey, Unusable>;

Decoded decode_entry(const EntryIdentity& id, std::span<const std::byte> file);

// Reads a whole file; false when it cannot be opened (absent or unreadable).
bool read_whole_file(const std::filesystem::path& path, std::vector<std::byte>& bytes);

// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so
// that readers see the old file or the new one, never a part. Throws std::system_error.
void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> bytes);

}  // namespace gpgpu::cache::detail
