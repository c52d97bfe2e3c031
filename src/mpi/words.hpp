// Moving a Buffer's elements as raw 32-bit words: every gpgpu element type is 4 bytes, and
// MPI moves bytes, so the host staging of gpgpu::mpi is typeless; each transfer is typed by
// the Buffer's element type (the data path checks it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "gpgpu/buffer.hpp"

namespace gpgpu::mpi::detail {

using Word = std::uint32_t;

// Starts copying elements [offset, offset + out.size()) of `b` into `out`.
PendingRun download_words(const Buffer& b, std::span<Word> out, std::size_t offset);
// Copies `in` into `b` from element `offset`.
void upload_words(Buffer& b, std::span<const Word> in, std::size_t offset);

}  // namespace gpgpu::mpi::detail
