// Internal: copies between GL buffers on the device, for Buffer::copy_from and
// TransferQueue::copy.
//
// NVIDIA's GL driver runs glCopyBufferSubData at 172-177 GB/s on an H200 from 16 MiB to
// 1 GiB, where a compute shader copies the same bytes at 3.3-4.0 TB/s (docs/memory.md). On a
// device with compute shaders that is not a CPU driver, copies of at least
// `device_copy_kernel_bytes` therefore run as a compute copy; the rest, and every copy on
// llvmpipe (where glCopyBufferSubData is a memcpy), take glCopyBufferSubData.
#pragma once

#include <cstddef>

#include "gl/context_state.hpp"
#include "gl/gl.hpp"

namespace gpgpu::detail {

constexpr std::size_t device_copy_kernel_bytes = std::size_t{64} << 10;

enum class DeviceCopyMethod { Auto, Kernel, CopyBufferSubData };

struct DeviceCopyOptions {
  DeviceCopyMethod method = DeviceCopyMethod::Auto;
  // The most bytes one dispatch binds of each buffer; 0: the device's storage block size.
  // (Tests lower it to reach the chunking without buffers of the device's limit.)
  std::size_t max_chunk_bytes = 0;
};

// Copies `bytes` from `source` at `source_offset` into `destination` at
// `destination_offset` (byte offsets and size multiples of 4; the ranges must not overlap
// within one buffer), ordered after earlier commands and before later ones, with every
// barrier a later reader of the destination needs. The context must be current; no program
// or storage binding is left bound.
void copy_on_device(ContextState& state, GLuint source, std::size_t source_offset,
                    GLuint destination, std::size_t destination_offset, std::size_t bytes,
                    const DeviceCopyOptions& options = {});

}  // namespace gpgpu::detail
