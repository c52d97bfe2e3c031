// Internal: rewriting a compute kernel's GLSL so that every subscript of one array logs
// which invocation touched which element (gpgpu trace).
//
// The rewrite is textual and needs no GLSL parser: every `NAME[expr]` outside buffer-block
// and struct declarations becomes `NAME[gpgpu_trace_touch(expr, kind)]`, where kind says
// read (1), write (2) or read-and-write (3) from the operator that follows (`=` writes,
// `+=` and `++` read and write, anything else reads) or an enclosing atomic*() call.
// Subscripts inside the index are rewritten too (a[a[i]]). Comments are left alone.
// Limits: an unrelated struct member or local array with the traced name would be traced
// as well; accesses through a macro whose body names the array are traced (the body is
// rewritten), but not accesses whose array name is built by token pasting.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gpgpu::detail {

struct InstrumentedSource {
  std::string source;     // the kernel with the helpers and rewritten subscripts
  std::size_t sites = 0;  // subscripts rewritten
};

// The block that collects the log, bound at `binding`: uint count, uint pad, uvec2 entries[].
// Each entry is (invocation, element | kind << 30), invocation being the work group's linear
// index times the group size plus gl_LocalInvocationIndex.
inline constexpr const char* trace_log_block = "GpgpuTraceLog";

// Rewrites `source`'s subscripts of `array` and inserts the logging helpers on the line of
// the `layout(local_size_...) in;` declaration (so the driver's line numbers still match
// the user's). Throws ArgumentError when there is no such declaration or no subscript of
// `array` to trace.
InstrumentedSource instrument_array_accesses(std::string_view source, std::string_view array,
                                             int log_binding);

}  // namespace gpgpu::detail
