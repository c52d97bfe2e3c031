// gpgpu/access_trace.hpp — which invocation touched which element of an array, and how
// well each warp's accesses coalesce. Made by TracedKernel (trace.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace gpgpu {

// What a traced access did to its element (bit 1 read, bit 2 write).
enum class AccessKind : std::uint8_t { Read = 1, Write = 2, ReadWrite = 3 };

// One access the traced kernel made to the traced array.
struct TracedAccess {
  // The work group's linear index times the group size, plus gl_LocalInvocationIndex: the
  // order in which hardware forms warps (consecutive invocations of one group).
  std::uint32_t invocation = 0;
  std::uint32_t element = 0;  // index into the traced array
  AccessKind kind = AccessKind::Read;  // read, write or both (an atomic)
};

// How the accesses of one kind group into warp-wide memory requests: the k-th access of
// every invocation of a warp is taken as one request (as the hardware issues it), and the
// distinct `sector_bytes` segments it touches are counted.
struct CoalescingStats {
  std::size_t accesses = 0;  // accesses of this kind
  std::size_t requests = 0;  // warp-wide requests they form
  double sectors_per_request = 0;        // mean, as traced
  double ideal_sectors_per_request = 0;  // mean, had each request touched consecutive elements
  // ideal / traced: 1 is perfectly coalesced; 1/32 is one transaction per invocation.
  double efficiency() const {
    return sectors_per_request > 0 ? ideal_sectors_per_request / sectors_per_request : 0;
  }
};

// Every access one run of a TracedKernel made to one array, with what it is about.
struct AccessTrace {
  std::string buffer;     // the traced array's name
  std::string glsl_type;  // its element type as introspection reports it
  std::size_t element_bytes = 4;              // bytes per element
  std::array<int, 3> local_size = {1, 1, 1};  // the kernel's work-group size
  std::size_t group_size = 1;                 // invocations per work group
  std::size_t sites = 0;               // subscripts of the array that were instrumented
  std::uint64_t total_accesses = 0;    // all the kernel made, also beyond the capacity
  bool truncated = false;              // true when accesses holds fewer than total_accesses
  std::vector<TracedAccess> accesses;  // in the order the GPU logged them

  std::size_t invocations() const;  // highest invocation that accessed the array, + 1
  std::uint32_t max_element() const;  // highest element index accessed
  std::size_t count(AccessKind kind) const;  // ReadWrite counts as a read and as a write
  // Read: accesses that read (Read, ReadWrite); Write: that write (Write, ReadWrite).
  CoalescingStats coalescing(AccessKind kind, int warp_size = 32,
                             std::size_t sector_bytes = 32) const;
  // A few lines: counts, invocations, element range, and coalescing of reads and writes.
  std::string summary(int warp_size = 32) const;
  // The summary's numbers as a JSON object (no per-access data).
  std::string json(int warp_size = 32) const;
};

// How write_access_png draws a trace.
struct AccessPictureOptions {
  std::string title;                 // a caption line above the axes (optional)
  int width = 1024;                  // pixels along the invocation axis
  int panel_height = 384;            // pixels along the element axis, per panel
  std::size_t first_invocation = 0;  // the window of invocations drawn
  std::size_t invocation_count = 0;  // 0: up to the last one
  int warp_size = 32;                // for colouring: one colour per warp of a group
};

// Whether write_access_png can write PNGs (gpgpu was built with libpng).
bool access_png_supported();

// Draws the trace: one panel for reads and one for writes (those present), x = invocation,
// y = element index (0 at the top), each access a dot coloured by its warp within the work
// group, every other work group drawn darker, with a caption naming the array, the axes'
// ranges and the coalescing efficiency. Coalesced access shows as a rising diagonal per
// warp; strided access as a steep staircase. Throws UnsupportedError without libpng,
// ArgumentError for an empty window or sizes below 64 x 32, Error if the file cannot be written.
void write_access_png(const AccessTrace& trace, const std::filesystem::path& path,
                      const AccessPictureOptions& options = {});

}  // namespace gpgpu
