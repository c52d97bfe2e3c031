#include "histogram_glsl.hpp"

#include <fmt/format.h>

#include "glsl_ops.hpp"
#include "last_group_glsl.hpp"

namespace gpgpu::primitives {

namespace {

// Needs S, S4, IS_FLOAT, IS_INT, L, MODE, COPIES, STRIDED, LOAD4/LOAD1.
// Shared-memory copies (MODE 0) and private copies (MODE 1) are added into `acc` (zero
// between calls), and the last group to finish writes the output: clearing and counting
// are one dispatch. Global atomics (MODE 2) count on the output, cleared beforehand.
const char* const histogram_glsl = R"(
layout(local_size_x = L) in;
layout(std430, binding = 2) buffer Counts { uint counts[]; };
#if MODE != 2
layout(std430, binding = 3) coherent buffer Acc { uint acc[]; };
layout(std430, binding = 4) coherent buffer Done { uint done_count[]; };
uniform bool accumulate;
#if MODE == 0
LAST_GROUP
#endif
#endif
uniform uint bins;
#if IS_FLOAT
uniform float lo;
uniform float hi;
uniform float scale;
#else
uniform uint lo_bits;
#endif
uniform uint body_begin;
uniform uint body_count;
uniform uint chunk;
uniform uint trips;
uniform uvec4 edges;
uniform uint out_offset;

// The slot of a value: a bin, or bins (below), bins + 1 (above), bins + 2 (NaN).
uint slot_of(S x) {
#if IS_FLOAT
  if (isnan(x)) return bins + 2u;
  if (x < lo) return bins;
  if (x > hi) return bins + 1u;
  precise float t = (x - lo) * scale;
  return min(uint(t), bins - 1u);
#elif IS_INT
  int l = int(lo_bits);
  if (x < l) return bins;
  uint d = uint(x) - lo_bits;
  return d < bins ? d : bins + 1u;
#else
  if (x < lo_bits) return bins;
  uint d = x - lo_bits;
  return d < bins ? d : bins + 1u;
#endif
}

#if MODE == 0
shared uint local_counts[COPIES * (BINS_CAP)];
#define COUNT(s) atomicAdd(local_counts[copy * stride + (s)], 1u)
#elif MODE == 1
shared uint local_counts[L * (BINS_CAP)];
#define COUNT(s) local_counts[copy * stride + (s)] += 1u
#else
#define COUNT(s) atomicAdd(counts[out_offset + (s)], 1u)
#endif

void count4(S4 x, uint copy, uint stride) {
  COUNT(slot_of(x.x));
  COUNT(slot_of(x.y));
  COUNT(slot_of(x.z));
  COUNT(slot_of(x.w));
}

void main() {
  uint lid = gl_LocalInvocationID.x;
  uint g = gl_WorkGroupID.x;
  uint stride = bins + 3u;
#if MODE == 0
  uint copy = lid / uint(L / COPIES);
  for (uint i = lid; i < uint(COPIES) * stride; i += uint(L)) local_counts[i] = 0u;
  barrier();
#elif MODE == 1
  uint copy = lid;
  for (uint i = 0u; i < stride; ++i) local_counts[copy * stride + i] = 0u;
#else
  uint copy = 0u;
#endif
#if MODE == 1
  // A contiguous run of chunk vec4s per invocation.
  uint inv = g * uint(L) + lid;
  uint begin = inv * chunk;
  uint end = min(begin + chunk, body_count);
  for (uint i = begin; i < end; ++i) count4(LOAD4(body_begin + i), copy, stride);
#elif STRIDED
  // All groups sweep the input together: trip t of group g reads vec4s (t * groups + g) * L.
  for (uint t = 0u; t < trips; ++t) {
    uint i = (t * gl_NumWorkGroups.x + g) * uint(L) + lid;
    if (i < body_count) count4(LOAD4(body_begin + i), copy, stride);
  }
#else
  uint begin = g * chunk;
  uint end = min(begin + chunk, body_count);
  for (uint t = 0u; t < trips; ++t) {
    uint i = begin + t * uint(L) + lid;
    if (i < end) count4(LOAD4(body_begin + i), copy, stride);
  }
#endif
  if (g == 0u && lid == 0u) {
    for (uint j = edges.x; j < edges.y; ++j) COUNT(slot_of(LOAD1(j)));
    for (uint j = edges.z; j < edges.w; ++j) COUNT(slot_of(LOAD1(j)));
  }
#if MODE == 0
  barrier();
  for (uint i = lid; i < stride; i += uint(L)) {
    uint total = 0u;
    for (uint c = 0u; c < uint(COPIES); ++c) total += local_counts[c * stride + i];
    if (total != 0u) atomicAdd(acc[i], total);
  }
#elif MODE == 1
  for (uint i = 0u; i < stride; ++i) {
    uint total = local_counts[copy * stride + i];
    if (total != 0u) atomicAdd(acc[i], total);
  }
#endif
#if MODE == 0
  // One dispatch: the last group to finish moves the totals to the output (replacing or
  // adding to it) and leaves acc zeroed, and the counter reset, for the next call.
  if (!last_group()) return;
  for (uint i = lid; i < stride; i += uint(L)) {
    uint total = atomicExchange(acc[i], 0u);
    counts[out_offset + i] = accumulate ? counts[out_offset + i] + total : total;
  }
  if (lid == 0u) done_count[0] = 0u;
#elif MODE == 1
  // The same per invocation, without barriers: a barrier anywhere makes llvmpipe run the
  // whole kernel as coroutines (2-3x slower here).
  memoryBarrierBuffer();
  if (atomicAdd(done_count[0], 1u) == gl_NumWorkGroups.x * uint(L) - 1u) {
    memoryBarrierBuffer();
    for (uint i = 0u; i < stride; ++i) {
      uint total = atomicExchange(acc[i], 0u);
      counts[out_offset + i] = accumulate ? counts[out_offset + i] + total : total;
    }
    done_count[0] = 0u;
  }
#endif
}
)";

}  // namespace

std::string histogram_source(ElementType type, const HistogramShape& shape) {
  // The host plans the sweep (histogram.cpp) from the same flag: both read shape.strided.
  const bool strided = shape.strided;
  return fmt::format(
             "#define S {}\n#define S4 {}\n#define IS_FLOAT {}\n#define IS_INT {}\n#define L {}\n"
             "#define MODE {}\n#define COPIES {}\n#define BINS_CAP {}\n#define STRIDED {}\n",
             scalar_type(type), vec4_type(type), type == ElementType::Float32 ? 1 : 0,
             type == ElementType::Int32 ? 1 : 0, shape.local, static_cast<int>(shape.mode),
             shape.copies, shape.bins + 3, strided ? 1 : 0) +
         input_glsl(type, shape.texels, 0) + with_last_group(histogram_glsl);
}

std::string clear_source(int local) {
  return fmt::format(
      "layout(local_size_x = {}) in;\n"
      "layout(std430, binding = 0) writeonly buffer Counts {{ uint counts[]; }};\n"
      "uniform uint out_offset;\n"
      "uniform uint n;\n"
      "void main() {{\n"
      "  uint i = gpgpu_index();\n"
      "  if (i < n) counts[out_offset + i] = 0u;\n"
      "}}\n",
      local);
}

}  // namespace gpgpu::primitives
