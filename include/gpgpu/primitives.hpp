// gpgpu/primitives.hpp — parallel primitives on Buffers: reduce, argmin/argmax.
//
//   gpgpu::Context ctx;
//   auto x = gpgpu::Buffer::from(ctx, host_floats);
//   float s = gpgpu::reduce<float>(ctx, x);                      // sum, read back to the host
//   float m = gpgpu::reduce<float>(ctx, x, gpgpu::Op::Max);
//   gpgpu::reduce(ctx, x, totals, gpgpu::Op::Sum, {.out_offset = 3});  // into totals[3], no wait
//   auto [i, v] = gpgpu::argmax<float>(ctx, x);                  // index of the first maximum
//   float t = gpgpu::reduce(ctx, std::span<const float>(host));  // host data: upload, reduce
//
// Every primitive works on Buffers that stay on the device; the host-span overloads upload
// through Buffer::from and read the result back. The Buffer overloads that write into an
// output Buffer do not wait for the GPU: chain them with kernels and read back once.
//
// Element types: float32, int32 and uint32 Buffers; with `components` = 2, 3 or 4 the
// Buffer holds packed vecN / ivecN / uvecN elements (3n floats for n vec3s) and operators
// act per component (or on the whole vector, for a GLSL operator: see GlslOp).
//
// Operators: Op::Sum, Op::Product, Op::Min, Op::Max, or a GlslOp: an associative GLSL
// expression of `a` and `b` (of the element's GLSL type: float, vec3, ivec2, uint...) with
// its identity, e.g. GlslOp{"max(abs(a), abs(b))", "0.0"}. The operator must be associative
// (it is applied in a tree order); it need not be commutative (operands keep their order).
// Integer sums and products wrap modulo 2^32 (as in GLSL). Min/max of floats involving NaN
// are unspecified (GLSL min/max); sums propagate NaN and infinities as IEEE does.
//
// Accuracy of float sums: the terms are added in a fixed tree whose depth d depends only on
// n (results are deterministic on a device), so |result - exact| <= d * 2^-24 * sum |x_i|;
// reduce_error_depth(ctx, n) gives d (at most about 80 for the largest Buffers, about 20
// for small ones). A product of n floats makes at most n - 1 roundings, each relative
// 2^-24: |result - exact| <= (n - 1) * 2^-24 * |exact| to first order.
//
// Empty input: reduce returns the identity; argmin/argmax return no_index.
//
// Kernels are compiled once per Context (on first use) and reused, as is a scratch Buffer
// grown on demand; both belong to the Context (Context::attachment) and are freed with it.
// release_primitive_resources(ctx) frees them earlier. Using a released Context throws.
//
// Errors (gpgpu::Error subclasses, thrown before anything runs): a Buffer from another
// Context or empty (ArgumentError), a wrong element type (TypeMismatchError), a range or
// output offset outside a Buffer (SizeMismatchError), components outside 1..4, a GLSL
// operator that does not compile (CompileError, with the generated source).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/context.hpp"

namespace gpgpu {

// The built-in operators.
enum class Op { Sum, Product, Min, Max };

// A user operator: `expression` combines `a` and `b` (GLSL, of the element's type) and must
// be associative; `identity` is a GLSL expression e with op(e, x) == op(x, e) == x.
struct GlslOp {
  std::string expression;  // GLSL combining `a` and `b`, e.g. "a * b"
  std::string identity;    // GLSL for the identity element, e.g. "1.0"
};

// Either a built-in operator or a GlslOp.
class Operator {
 public:
  Operator(Op op) : builtin_(op) {}                             // NOLINT: implicit on purpose
  Operator(GlslOp op) : custom_(true), glsl_(std::move(op)) {}  // NOLINT
  bool is_builtin() const noexcept { return !custom_; }  // a built-in Op, not a GlslOp
  Op builtin() const noexcept { return builtin_; }         // the Op, when is_builtin()
  const GlslOp& glsl() const noexcept { return glsl_; }    // the GlslOp, when not is_builtin()
  std::string describe() const;  // "sum", "max", "glsl(a * b | 1.0)"

 private:
  Op builtin_ = Op::Sum;
  bool custom_ = false;
  GlslOp glsl_;
};

// "sum", "product", "min", "max" (the names the CLI takes); parse_op returns false for others.
std::string to_string(Op op);
bool parse_op(const std::string& name, Op& op);  // sets `op` and returns true for a known name

// `count` elements starting at element `first` (elements of `components` scalars);
// count = whole: to the end of the Buffer.
inline constexpr std::size_t whole = static_cast<std::size_t>(-1);
// A range of elements of a Buffer (see `whole`).
struct Range {
  std::size_t first = 0;      // the first element
  std::size_t count = whole;  // how many elements; `whole`: to the end
};

// Options of the Buffer form of reduce.
struct ReduceOptions {
  int components = 1;          // 1, or 2..4 for vecN elements
  Range range{};               // which elements to reduce
  std::size_t out_offset = 0;  // where the result goes in the output Buffer, in scalars
};

// ---- reduce -------------------------------------------------------------------------------

// Reduces `in` and writes the result (`components` scalars) to out[out_offset...]; `out`
// has `in`'s element type. Returns without waiting for the GPU.
void reduce(const Context& ctx, const Buffer& in, Buffer& out, const Operator& op = Op::Sum,
            const ReduceOptions& options = {});

// Reduces `in` (scalars) and returns the result; T is float, std::int32_t or std::uint32_t
// and must be `in`'s element type. Waits for the GPU.
template <class T>
T reduce(const Context& ctx, const Buffer& in, const Operator& op = Op::Sum, Range range = {});

// Reduces vecN elements (`components` = N) and returns the N result components.
template <class T>
std::vector<T> reduce_vector(const Context& ctx, const Buffer& in, int components,
                             const Operator& op = Op::Sum, Range range = {});

// @{
// Host data: uploaded, reduced, the result returned.
float reduce(const Context& ctx, std::span<const float> in, const Operator& op = Op::Sum);
std::int32_t reduce(const Context& ctx, std::span<const std::int32_t> in,
                    const Operator& op = Op::Sum);
std::uint32_t reduce(const Context& ctx, std::span<const std::uint32_t> in,
                     const Operator& op = Op::Sum);
// @}

// The depth d of the summation tree reduce uses for n elements of `components` scalars on
// this device (see "Accuracy" above): |sum - exact| <= d * 2^-24 * sum |x_i| per component.
// builtin_op = false: the depth for a GlslOp (an in-order tree).
int reduce_error_depth(const Context& ctx, std::size_t n, int components = 1,
                       bool builtin_op = true);

// ---- argmin / argmax ----------------------------------------------------------------------

// The index of the first smallest / largest element (scalars only; NaNs are skipped) and
// its value. index == no_index for an empty range or one of NaNs only.
inline constexpr std::uint32_t no_index = 0xFFFFFFFFu;
// What argmin and argmax return: the element's index and value.
template <class T>
struct Extreme {
  std::uint32_t index = no_index;  // relative to the Buffer's start, not to range.first
  T value{};                       // the element's value
};

// @{
// The first smallest / largest element of range of `in` (waits for the GPU).
template <class T>
Extreme<T> argmin(const Context& ctx, const Buffer& in, Range range = {});
template <class T>
Extreme<T> argmax(const Context& ctx, const Buffer& in, Range range = {});
// @}
// @{
// The same for host data (uploaded first).
template <class T>
Extreme<T> argmin(const Context& ctx, std::span<const T> in);
template <class T>
Extreme<T> argmax(const Context& ctx, std::span<const T> in);
// @}

// @{
// Device results: writes the index (uint32) into index_out[out_offset]. No wait.
void argmin(const Context& ctx, const Buffer& in, Buffer& index_out, std::size_t out_offset = 0,
            Range range = {});
void argmax(const Context& ctx, const Buffer& in, Buffer& index_out, std::size_t out_offset = 0,
            Range range = {});
// @}

// ---- scan --------------------------------------------------------------------------------

// How a scan crosses tiles. SinglePass: decoupled look-back (each tile waits for its
// predecessors' published prefixes; needs work groups that make progress concurrently, as
// GPUs' do). ReduceThenScan: tile totals, a scan of them, then the tiles: three dispatches,
// 1.5x the memory traffic, no inter-group waiting. Auto: SinglePass on GPUs. Software
// devices (llvmpipe) always run ReduceThenScan: they end a shader's loops after 65535 trips
// in all, which no wait for another work group can be guaranteed to stay within.
enum class ScanAlgorithm { Auto, SinglePass, ReduceThenScan };

// Options of the Buffer forms of the scans.
struct ScanOptions {
  int components = 1;         // 1, or 2..4 for vecN elements
  Range range{};              // which elements of `in` to scan
  std::size_t out_first = 0;  // out[out_first + i] receives the result for element first + i
  ScanAlgorithm algorithm = ScanAlgorithm::Auto;  // how tiles are chained (above)
};

// @{
// out[i] = in[0] op ... op in[i] (inclusive) or in[0] op ... op in[i - 1], identity for
// i = 0 (exclusive), over options.range; `out` has `in`'s element type and may be `in`
// (in place). Returns without waiting for the GPU. Accuracy of float sums: each output is a
// sum in a fixed order of depth at most scan_error_depth(ctx, n), so
// |out[i] - exact_i| <= d * 2^-24 * sum_{j <= i} |x_j|; d grows with the number of tiles
// (n / 4096) in single-pass mode, as in every chained scan.
void inclusive_scan(const Context& ctx, const Buffer& in, Buffer& out, const Operator& op = Op::Sum,
                    const ScanOptions& options = {});
void exclusive_scan(const Context& ctx, const Buffer& in, Buffer& out, const Operator& op = Op::Sum,
                    const ScanOptions& options = {});
// @}

// @{
// Host data (T: float, std::int32_t, std::uint32_t): uploaded, scanned, returned.
template <class T>
std::vector<T> inclusive_scan(const Context& ctx, std::span<const T> in,
                              const Operator& op = Op::Sum, int components = 1);
template <class T>
std::vector<T> exclusive_scan(const Context& ctx, std::span<const T> in,
                              const Operator& op = Op::Sum, int components = 1);
// @}

// The depth bound d of a scan of n elements (see above).
int scan_error_depth(const Context& ctx, std::size_t n, int components = 1,
                     ScanAlgorithm algorithm = ScanAlgorithm::Auto);

// ---- sort --------------------------------------------------------------------------------

// LSD radix sort, 4 passes of 8-bit digits, stable. Key order: uint32 and int32 as numbers;
// float32: -inf < negatives < -0.0 = +0.0 < positives < +inf, then every NaN (NaNs compare
// equal to each other and come last in both directions; -0.0 and +0.0 keep their input
// order). Descending is the reverse order of non-NaN keys, still stable (equal keys keep
// their input order). Keys keep their exact bits (NaN payloads, the sign of zero).
enum class SortOrder { Ascending, Descending };

// Sorts keys[range] in place (float32, int32 or uint32 keys). No wait.
void sort(const Context& ctx, Buffer& keys, SortOrder order = SortOrder::Ascending,
          Range range = {});
// Sorts keys[range] in place and moves values[range] (uint32) with them, stably. No wait.
void sort_by_key(const Context& ctx, Buffer& keys, Buffer& values,
                 SortOrder order = SortOrder::Ascending, Range range = {});
// indices[0, n) = the positions in `keys` (range.first + i) of the keys in stably sorted
// order; `keys` is not changed. `indices` holds uint32. No wait.
void argsort(const Context& ctx, const Buffer& keys, Buffer& indices,
             SortOrder order = SortOrder::Ascending, Range range = {});

// @{
// Host data (T: float, std::int32_t, std::uint32_t).
template <class T>
void sort(const Context& ctx, std::span<T> keys, SortOrder order = SortOrder::Ascending);
template <class T>
void sort_by_key(const Context& ctx, std::span<T> keys, std::span<std::uint32_t> values,
                 SortOrder order = SortOrder::Ascending);
template <class T>
std::vector<std::uint32_t> argsort(const Context& ctx, std::span<const T> keys,
                                   SortOrder order = SortOrder::Ascending);
// @}

// ---- compaction ----------------------------------------------------------------------------

// `predicate` is a GLSL boolean expression of `x` (the element: float, vec3, int, uvec2...)
// and `i` (its index in the Buffer, a uint), e.g. "x > 0.5" or "(i & 1u) == 0u && x.y != 0".
// Outputs go to out[0, count) in input order; `out` has `in`'s element type and room for
// every element of the range (how many are selected is known only on the device).
struct CompactOptions {
  int components = 1;  // 1, or 2..4 for vecN elements
  Range range{};       // which elements of `in` to consider
};

// Copies the elements where the predicate holds; returns how many (waits for the GPU).
std::size_t copy_if(const Context& ctx, const Buffer& in, Buffer& out, const std::string& predicate,
                    const CompactOptions& options = {});
// Stable partition: the elements where the predicate holds, then the others, each group in
// input order; returns the size of the first group (waits for the GPU).
std::size_t partition(const Context& ctx, const Buffer& in, Buffer& out,
                      const std::string& predicate, const CompactOptions& options = {});
// The first element of each run of equal elements (GLSL ==: -0.0 equals +0.0, a NaN equals
// nothing, so every NaN is kept); on sorted input, the distinct values. Returns how many.
std::size_t unique(const Context& ctx, const Buffer& in, Buffer& out,
                   const CompactOptions& options = {});
// @{
// The same, writing the count to count_out[count_offset] (uint32) without waiting.
void copy_if(const Context& ctx, const Buffer& in, Buffer& out, const std::string& predicate,
             Buffer& count_out, std::size_t count_offset = 0, const CompactOptions& options = {});
void partition(const Context& ctx, const Buffer& in, Buffer& out, const std::string& predicate,
               Buffer& count_out, std::size_t count_offset = 0, const CompactOptions& options = {});
void unique(const Context& ctx, const Buffer& in, Buffer& out, Buffer& count_out,
            std::size_t count_offset = 0, const CompactOptions& options = {});
// @}

// @{
// Host data.
template <class T>
std::vector<T> copy_if(const Context& ctx, std::span<const T> in, const std::string& predicate,
                       int components = 1);
template <class T>
std::vector<T> unique(const Context& ctx, std::span<const T> in, int components = 1);
// @}

// ---- segmented reduce ----------------------------------------------------------------------

// @{
// out[s] = in[offsets[s]] op ... op in[offsets[s + 1] - 1] for each of the offsets.size() - 1
// segments (offsets: uint32, non-decreasing, in elements of `components` scalars, the last at
// most the elements of `in`); an empty segment gives the identity. Each segment is reduced
// in operand order (GlslOps need not commute); a float sum of a segment of m terms errs by at
// most (m - 1) * 2^-24 * sum |x| (in practice a tree of depth ~ m / lanes + log2(lanes)).
// The offsets are not checked on the host (they live on the device): one past the end of
// `in` is clamped to it, and a segment whose end precedes its start is empty. No wait (on
// software devices the offsets are read back first, to size the work to llvmpipe's limits).
void segmented_reduce(const Context& ctx, const Buffer& in, const Buffer& offsets, Buffer& out,
                      const Operator& op = Op::Sum, int components = 1);
template <class T>
std::vector<T> segmented_reduce(const Context& ctx, std::span<const T> in,
                                std::span<const std::uint32_t> offsets,
                                const Operator& op = Op::Sum, int components = 1);
// @}

// ---- histogram ---------------------------------------------------------------------------

// Counts per bin, written to a uint32 Buffer of bins + 3 entries: [0, bins) the bins,
// [bins] values below the range, [bins + 1] values above it, [bins + 2] NaNs (floats).
//
// Float bins: `bins` equal bins over [lo, hi]; x goes to bin min(uint((x - lo) * scale),
// bins - 1) with scale = float(bins) / (hi - lo), both computed in float32 (so a value on a
// bin edge goes where that float32 arithmetic puts it; hi itself goes to the last bin, as
// in NumPy); x < lo counts as below, x > hi as above (infinities included).
// Integer bins (int32 / uint32 input): value v goes to bin v - lo for lo <= v < lo + bins.
// accumulate: add to the counts already in the Buffer instead of replacing them.
// Returns without waiting for the GPU.
// Options of the Buffer forms of histogram.
struct HistogramOptions {
  Range range{};               // which elements of `in` to count
  std::size_t out_offset = 0;  // where the bins + 3 counts start in `counts`
  bool accumulate = false;     // add to the counts in the Buffer instead of replacing them
};
// Float bins over [lo, hi] (above).
void histogram(const Context& ctx, const Buffer& in, Buffer& counts, std::uint32_t bins, float lo,
               float hi, const HistogramOptions& options = {});
// Integer bins [lo, lo + bins) (above).
void histogram_int(const Context& ctx, const Buffer& in, Buffer& counts, std::uint32_t bins,
                   std::int64_t lo, const HistogramOptions& options = {});

// A histogram of host data, counted on the device.
struct HistogramCounts {
  std::vector<std::uint32_t> bins;  // the count of each bin
  std::uint32_t below = 0;          // values below the range
  std::uint32_t above = 0;          // values above the range
  std::uint32_t nan = 0;            // NaNs (float input)
};
// The histogram of host data (float bins over [lo, hi], as above).
HistogramCounts histogram(const Context& ctx, std::span<const float> in, std::uint32_t bins,
                          float lo, float hi);
// @{
// The histogram of host integers: bins [lo, lo + bins), as above.
HistogramCounts histogram_int(const Context& ctx, std::span<const std::int32_t> in,
                              std::uint32_t bins, std::int64_t lo);
HistogramCounts histogram_int(const Context& ctx, std::span<const std::uint32_t> in,
                              std::uint32_t bins, std::int64_t lo);
// @}

// ---- tuning (advanced) ---------------------------------------------------------------------

// The kernels' shapes. 0 (or -1 for flags) means the device's default, which
// primitive_tuning reports filled in. A different shape changes the summation order (so the
// last bits of float sums; the *_error_depth functions follow) and the speed, never the
// meaning. `gpgpu bench primitives --sweep` times a few shapes.
struct PrimitiveTuning {
  int reduce_local = 0;      // invocations per work group (a power of two, 32..1024)
  int reduce_unroll = 0;     // independent vec4 loads per trip: 1, 2, 4 or 8
  int reduce_max_trips = 0;  // trips per invocation before another work group is added
  int scan_local = 0;        // invocations per work group (a power of two, 32..1024)
  int scan_scalars = 0;      // scalars per invocation: 4, 8, 12, 16, ... 32
  int sort_local = 0;        // invocations per work group (a multiple of 32; 1..64 if serial)
  int sort_keys = 0;         // keys per invocation (16..32 ranked, up to 8192 serial)
  int sort_serial = -1;      // 1: each invocation sorts its own tile sequentially (CPU
                             // devices); 0: a work group ranks a tile in shared memory (GPUs)
  int texel_loads = -1;      // 1: the CPU-style kernels, reading inputs through buffer
                             // textures (gpgpu::texels; the fast loads on CPU devices) where
                             // the device has them, else storage buffers; 0: the GPU-style
                             // kernels, storage-buffer loads
  int subgroups = -1;        // 1: the subgroup kernels (GL_KHR_shader_subgroup with basic,
                             // vote, arithmetic, ballot and shuffle in compute shaders; on
                             // llvmpipe, which lacks it, emulated in shared memory: slow, for
                             // testing); 0: the shared-memory kernels; -1: subgroups where the
                             // device has them. $GPGPU_PRIMITIVES_SUBGROUPS=0|1 sets the default.
  int sort_onesweep = -1;    // 1: the Onesweep radix sort on the subgroup kernels (one pass
                             // per digit, chained look-back); 0: count, scan and scatter per
                             // digit; -1: 1 on GPUs with subgroups (measured faster on an
                             // H200, see docs/primitives.md), else 0. Only with subgroups on.
  int onesweep_local = 0;    // Onesweep's invocations per work group (a multiple of 32, 32..512)
  int onesweep_keys = 0;     // Onesweep's keys per invocation (8..32); its tile and tables
                             // take 4 * (onesweep_local * onesweep_keys + 256) bytes of shared
                             // memory, which decides how many tiles a GPU core holds at once
};

// Sets the shapes for this Context's later calls; throws ArgumentError for a value outside
// the ranges above, or a shape over the device's work-group or shared-memory limits (as a
// device-limit profile clamps them: gpgpu/limits.hpp). The device defaults and stored shapes
// shrink to those limits by themselves.
void set_primitive_tuning(const Context& ctx, const PrimitiveTuning& tuning);
// The shapes in effect (defaults filled in).
PrimitiveTuning primitive_tuning(const Context& ctx);
// Keeps `tuning` on disk for this device and driver (the "primitive-tuning" store of the
// cache, gpgpu/cache.hpp): `ctx` and the Contexts made afterwards on them, by this process
// or later ones, use its shapes (its non-zero fields) wherever set_primitive_tuning leaves a
// field at its default. Validated as set_primitive_tuning does (ArgumentError).
// `gpgpu bench primitives --sweep` stores the fastest shapes it measured.
void store_primitive_tuning(const Context& ctx, const PrimitiveTuning& tuning);

// ---- resources ----------------------------------------------------------------------------

// Frees the primitives' compiled kernels and scratch Buffers of `ctx` now (they are made
// again on next use).
void release_primitive_resources(const Context& ctx);
// Bytes of scratch device memory the primitives hold for `ctx`.
std::size_t primitive_scratch_bytes(const Context& ctx);

}  // namespace gpgpu
