#include "gpgpu/transpose.hpp"

#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu {

namespace {

constexpr int tile = 32;

// One invocation per element: the read walks along a row of `in` (coalesced), the write
// walks down a column of `out` (each invocation of a warp in its own transaction).
constexpr std::string_view naive_body = R"(
layout(local_size_x = LOCAL_X, local_size_y = LOCAL_Y) in;
layout(std430, binding = 0) readonly buffer In { ELEM src[]; };
layout(std430, binding = 1) writeonly buffer Out { ELEM dst[]; };
uniform uint rows;
uniform uint cols;
void main() {
  uint c = gl_GlobalInvocationID.x;
  uint r = gl_GlobalInvocationID.y;
  if (r < rows && c < cols) dst[c * rows + r] = src[r * cols + c];
}
)";

// A TILE x TILE block per work group of TILE x LOCAL_Y invocations, each moving
// TILE / LOCAL_Y elements. Global reads and writes both run along rows; the column walk
// happens in shared memory, whose rows are TILE + PAD wide (PAD 1 spreads a column over
// all banks).
constexpr std::string_view tiled_body = R"(
layout(local_size_x = TILE, local_size_y = LOCAL_Y) in;
layout(std430, binding = 0) readonly buffer In { ELEM src[]; };
layout(std430, binding = 1) writeonly buffer Out { ELEM dst[]; };
uniform uint rows;
uniform uint cols;
shared ELEM tile[TILE * (TILE + PAD)];
void main() {
  uint tx = gl_LocalInvocationID.x;
  uint ty = gl_LocalInvocationID.y;
  uint first_col = gl_WorkGroupID.x * uint(TILE);
  uint first_row = gl_WorkGroupID.y * uint(TILE);
  for (uint k = 0u; k < uint(TILE); k += uint(LOCAL_Y)) {
    uint r = first_row + ty + k;
    uint c = first_col + tx;
    if (r < rows && c < cols) tile[(ty + k) * uint(TILE + PAD) + tx] = src[r * cols + c];
  }
  barrier();
  for (uint k = 0u; k < uint(TILE); k += uint(LOCAL_Y)) {
    uint r = first_col + ty + k;  // a row of out is a column of in
    uint c = first_row + tx;
    if (r < cols && c < rows) dst[r * rows + c] = tile[tx * uint(TILE + PAD) + ty + k];
  }
}
)";

struct Shape {
  std::uint32_t rows, cols;
};

Shape check_shape(std::size_t rows, std::size_t cols) {
  if (rows == 0 || cols == 0) {
    throw ArgumentError(fmt::format("transpose: a {} x {} matrix has no elements", rows, cols));
  }
  if (rows > std::numeric_limits<std::uint32_t>::max() / cols) {
    throw LimitError(fmt::format(
        "transpose: {} x {} elements exceed 2^32, which the kernels index with uint", rows, cols));
  }
  return {static_cast<std::uint32_t>(rows), static_cast<std::uint32_t>(cols)};
}

TransposeMethod resolve(TransposeMethod method) {
  return method == TransposeMethod::Auto ? TransposeMethod::TiledPadded : method;
}

// 32 x 8 invocations where the device allows, else 32 x 4 (OpenGL ES 3.1 guarantees 128).
int work_group_rows(const DeviceInfo& info) {
  int rows = 8;
  while (rows > 1 && (std::int64_t{tile} * rows > info.max_compute_work_group_invocations ||
                      rows > info.max_compute_work_group_size[1])) {
    rows /= 2;
  }
  return rows;
}

void dispatch(ComputeKernel& kernel, const Args& args, TransposeMethod method, Shape shape) {
  if (method == TransposeMethod::Naive) {
    kernel.run(args, Size3{shape.cols, shape.rows, 1});
  } else {
    kernel.run_groups(args,
                      Size3{(shape.cols + tile - 1) / tile, (shape.rows + tile - 1) / tile, 1});
  }
}

}  // namespace

std::string to_string(TransposeMethod method) {
  switch (method) {
    case TransposeMethod::Auto:
      return "auto";
    case TransposeMethod::Naive:
      return "naive";
    case TransposeMethod::Tiled:
      return "tiled";
    case TransposeMethod::TiledPadded:
      return "tiled-padded";
  }
  return "?";
}

TransposeMethod transpose_method_from_string(const std::string& name) {
  for (auto m : {TransposeMethod::Auto, TransposeMethod::Naive, TransposeMethod::Tiled,
                 TransposeMethod::TiledPadded}) {
    if (to_string(m) == name) return m;
  }
  throw ArgumentError(
      fmt::format("unknown transpose method '{}': use naive, tiled, tiled-padded or auto", name));
}

std::string transpose_kernel_source(TransposeMethod method, ElementType type, int local_x,
                                    int local_y) {
  method = resolve(method);
  const auto elem = glsl_scalar_name(type);
  if (method == TransposeMethod::Naive) {
    if (local_x <= 0 || local_y <= 0) {
      throw ArgumentError(fmt::format("transpose: work group {} x {} is empty", local_x, local_y));
    }
    return fmt::format("#define ELEM {}\n#define LOCAL_X {}\n#define LOCAL_Y {}\n", elem, local_x,
                       local_y) +
           std::string(naive_body);
  }
  if (local_x != tile || local_y <= 0 || tile % local_y != 0) {
    throw ArgumentError(fmt::format(
        "transpose: tiled kernels need a work group of {} x n with n dividing {}; got {} x {}",
        tile, tile, local_x, local_y));
  }
  return fmt::format("#define ELEM {}\n#define TILE {}\n#define LOCAL_Y {}\n#define PAD {}\n", elem,
                     tile, local_y, method == TransposeMethod::TiledPadded ? 1 : 0) +
         std::string(tiled_body);
}

template <class T>
void transpose(const Context& context, std::span<const T> in, std::span<T> out, std::size_t rows,
               std::size_t cols, TransposeMethod method) {
  const Shape shape = check_shape(rows, cols);
  const std::size_t n = rows * cols;
  if (in.size() != n || out.size() != n) {
    throw SizeMismatchError(
        fmt::format("transpose: a {} x {} matrix has {} elements; in holds {}, out holds {}", rows,
                    cols, n, in.size(), out.size()));
  }
  method = resolve(method);
  const int local_y = work_group_rows(context.info());
  ComputeKernel kernel(context,
                       transpose_kernel_source(method, element_type_of<T>(), tile, local_y), {},
                       "transpose (" + to_string(method) + ")");
  dispatch(kernel,
           {{"src", Arg(in)}, {"dst", gpgpu::out(out)}, {"rows", shape.rows}, {"cols", shape.cols}},
           method, shape);
}

template void transpose<float>(const Context&, std::span<const float>, std::span<float>,
                               std::size_t, std::size_t, TransposeMethod);
template void transpose<std::int32_t>(const Context&, std::span<const std::int32_t>,
                                      std::span<std::int32_t>, std::size_t, std::size_t,
                                      TransposeMethod);
template void transpose<std::uint32_t>(const Context&, std::span<const std::uint32_t>,
                                       std::span<std::uint32_t>, std::size_t, std::size_t,
                                       TransposeMethod);

void transpose(const Context& context, const Buffer& in, Buffer& out, std::size_t rows,
               std::size_t cols, TransposeMethod method) {
  if (!in.valid() || !out.valid()) {
    throw ArgumentError("transpose: a Buffer is empty or released");
  }
  if (in.gl_name() == out.gl_name() && in.context_state() == out.context_state()) {
    throw ArgumentError(
        "transpose: in and out are the same Buffer; transposing in place is not "
        "supported");
  }
  if (in.element_type() != out.element_type()) {
    throw TypeMismatchError(fmt::format("transpose: in holds {} but out holds {}",
                                        gpgpu::to_string(in.element_type()),
                                        gpgpu::to_string(out.element_type())));
  }
  const Shape shape = check_shape(rows, cols);
  const std::size_t n = rows * cols;
  if (in.size() < n || out.size() < n) {
    throw SizeMismatchError(
        fmt::format("transpose: a {} x {} matrix has {} elements; the in Buffer holds {}, out {}",
                    rows, cols, n, in.size(), out.size()));
  }
  method = resolve(method);
  ComputeKernel kernel(context,
                       transpose_kernel_source(method, in.element_type(), tile,
                                               work_group_rows(context.info())),
                       {},
                       "transpose (" + to_string(method) + ")");
  dispatch(kernel, {{"src", in}, {"dst", out}, {"rows", shape.rows}, {"cols", shape.cols}}, method,
           shape);
}

}  // namespace gpgpu
