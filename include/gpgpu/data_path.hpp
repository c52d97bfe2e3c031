// gpgpu/data_path.hpp — how host arrays reach the GPU and come back: options and counters.
//
// Every host array a kernel, a Texture, a Buffer or matmul takes goes through one transfer
// engine per Context (docs/data-path.md):
//   device memory  run temporaries come from a pool of device buffers kept by the Context,
//                  so repeated runs allocate nothing; Context::trim_device_pool() frees the
//                  idle ones, and the pool trims itself when the driver runs out of memory;
//   uploads        small arrays go to the driver directly (glBufferSubData); larger ones are
//                  copied by a pool of host threads into persistently mapped staging memory
//                  (GL_EXT_buffer_storage) in chunks, the GPU copying chunk i while the host
//                  threads fill chunk i+1;
//   downloads      the GPU copies results into mapped read-back staging, and a delivery
//                  thread copies each chunk into your array as soon as its fence signals, so
//                  the calling thread can already upload the next batch (the async API:
//                  ComputeKernel::run_async and friends, Buffer::download_async);
//   overlap        optionally the GPU copies of run arguments are issued from copy lanes, second
//                  contexts on threads of their own, so the upload of run i+1, the kernel of
//                  run i and the read-back of run i-1 may run at once (copy_context below;
//                  off by default: slower than in order on the driver measured).
// Devices without GL_EXT_buffer_storage use staging buffers mapped per chunk; CPU devices
// (llvmpipe), where "device memory" is host memory, copy directly (one memcpy each way).
//
//   gpgpu::Context ctx({.data_path = {.host_threads = 8}});
//   auto stats = ctx.data_path_stats();   // pool size, allocations, bytes moved
#pragma once

#include <cstddef>
#include <string>

namespace gpgpu {

// How the data path stages host arrays (DataPathOptions::staging).
enum class StagingMode {
  Auto,              // PersistentMapped on GPUs with GL_EXT_buffer_storage, Mapped on other
                     // GPUs, Direct on CPU devices
  PersistentMapped,  // staging rings mapped once (glBufferStorageEXT); fences per chunk
  Mapped,            // staging buffers mapped with glMapBufferRange for each chunk
  Direct,            // glBufferSubData / glMapBufferRange on the device buffer itself;
                     // downloads complete before the call returns
};

const char* to_string(StagingMode mode);  // "auto", "persistent-mapped", "mapped", "direct"

// Zero (or Auto) means "chosen for this device" in every field.
struct DataPathOptions {
  StagingMode staging = StagingMode::Auto;  // how host arrays are staged
  // Threads that copy between your arrays and staging memory, the caller's included.
  std::size_t host_threads = 0;
  // Bytes per staging chunk; transfers larger than this are pipelined chunk by chunk.
  std::size_t chunk_bytes = 0;
  // Staging chunks per direction: how much may be in flight at once.
  std::size_t staging_chunks = 0;
  // Uploads up to this many bytes go to the driver directly (glBufferSubData), skipping
  // staging: for small arrays the driver's own copy is the shortest path. Transfers of
  // run temporaries up to this size (either way) do not use the copy lanes either.
  std::size_t direct_upload_bytes = 0;
  // Idle device memory the pool keeps for later runs; beyond it, returned buffers are freed.
  std::size_t pool_bytes = 0;
  // Deliver downloads on a thread of their own (needs EGL 1.5 fences) rather than on the
  // thread that waits: lets an upload and a download run on the host at the same time.
  // 0 = auto (on where the staging is mapped), 1 = on, -1 = off.
  int delivery_thread = 0;
  // Issue the copies of run temporaries (kernel arguments from host arrays) from copy lanes:
  // threads with GL contexts of their own in the Context's share group, one per direction,
  // so that the upload of run i+1, the kernel of run i and the read-back of run i-1 may run
  // at once (one context executes its commands in order). Needs persistently mapped staging
  // and the delivery thread. 0 = auto (off: on the H200's driver the lanes were correct but
  // 12-33% slower than in-order copies, docs/data-path.md; $GPGPU_COPY_CONTEXT=1 makes auto
  // mean on), 1 = on, -1 = off. A device that cannot make a shared context runs without.
  int copy_context = 0;
};

// What the engine of one Context has done so far.
struct DataPathStats {
  std::string staging;           // the mode in use ("persistent-mapped", ...)
  std::size_t host_threads = 0;  // resolved options
  std::size_t chunk_bytes = 0;          // resolved DataPathOptions::chunk_bytes
  std::size_t staging_chunks = 0;       // resolved DataPathOptions::staging_chunks
  std::size_t direct_upload_bytes = 0;  // resolved DataPathOptions::direct_upload_bytes
  std::size_t pool_limit_bytes = 0;     // resolved DataPathOptions::pool_bytes
  bool delivery_thread = false;         // downloads delivered on a thread of their own
  bool copy_context = false;           // copy lanes in use (see DataPathOptions::copy_context)
  std::size_t lane_batches = 0;        // copy batches the lanes issued
  std::string copy_context_failure;    // why lanes asked for could not start (empty if none)
  std::size_t device_allocations = 0;  // device buffers created for run temporaries, ever
  std::size_t pool_reuses = 0;         // temporaries served from the pool
  std::size_t pooled_buffers = 0;      // idle buffers in the pool now
  std::size_t pooled_bytes = 0;        // their bytes
  std::size_t buffers_in_use = 0;  // temporaries handed out and not yet returned
  std::size_t trims = 0;           // times the pool was emptied (on demand or pressure)
  std::size_t bytes_uploaded = 0;  // through the engine (host arrays, uploads)
  std::size_t bytes_downloaded = 0;  // through the engine (host arrays, downloads)
  std::size_t pending = 0;  // async operations not yet waited for
};

}  // namespace gpgpu
