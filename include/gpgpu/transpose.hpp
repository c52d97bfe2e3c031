// gpgpu/transpose.hpp — out = in^T for row-major matrices on the GPU.
//
//   gpgpu::transpose(ctx, in, out, rows, cols);   // host arrays: in is rows x cols,
//                                                 // out becomes cols x rows
//   gpgpu::transpose(ctx, a, b, rows, cols);      // Buffers: no host round trip
//
// The textbook case of memory coalescing. A naive kernel reads a row (neighbour
// invocations read neighbour addresses: one wide transaction per warp) but writes a column
// (neighbours write addresses `rows` elements apart: one transaction per invocation). The
// tiled kernels stage a 32 x 32 tile in shared memory, so both the global read and the
// global write run along rows; the transposition happens in shared memory, where reading a
// column of a 32-wide tile sends a warp's 32 invocations to the same bank — padding each
// tile row by one element (33 wide) puts them in 32 different banks.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "gpgpu/element_type.hpp"

namespace gpgpu {

class Buffer;
class Context;

// The transpose kernels.
enum class TransposeMethod {
  Auto,         // TiledPadded
  Naive,        // one element per invocation: coalesced reads, strided writes
  Tiled,        // 32 x 32 tiles through shared memory, unpadded (bank conflicts)
  TiledPadded,  // 32 x 33 tiles: no bank conflicts
};

std::string to_string(TransposeMethod method);  // "naive", "tiled", "tiled-padded", "auto"
// "naive", "tiled", "tiled-padded", "auto"; throws ArgumentError for anything else.
TransposeMethod transpose_method_from_string(const std::string& name);

// @{
// Host arrays: `in` holds rows x cols elements in row-major order, `out` receives the cols x
// rows transpose. Throws ArgumentError for zero dimensions, SizeMismatchError when an array
// does not hold rows * cols elements, LimitError beyond the device's storage-block size.
template <class T>
void transpose(const Context& context, std::span<const T> in, std::span<T> out, std::size_t rows,
               std::size_t cols, TransposeMethod method = TransposeMethod::Auto);
template <class T>
void transpose(const Context& context, const std::vector<T>& in, std::vector<T>& out,
               std::size_t rows, std::size_t cols, TransposeMethod method = TransposeMethod::Auto) {
  transpose(context, std::span<const T>(in), std::span<T>(out), rows, cols, method);
}
// @}

// Buffers of the same element type; `in` and `out` must be different buffers.
// Also throws TypeMismatchError when their element types differ.
void transpose(const Context& context, const Buffer& in, Buffer& out, std::size_t rows,
               std::size_t cols, TransposeMethod method = TransposeMethod::Auto);

// @{
// The host-array transpose is compiled into the library for float, int32 and uint32.
extern template void transpose<float>(const Context&, std::span<const float>, std::span<float>,
                                      std::size_t, std::size_t, TransposeMethod);
extern template void transpose<std::int32_t>(const Context&, std::span<const std::int32_t>,
                                             std::span<std::int32_t>, std::size_t, std::size_t,
                                             TransposeMethod);
extern template void transpose<std::uint32_t>(const Context&, std::span<const std::uint32_t>,
                                              std::span<std::uint32_t>, std::size_t, std::size_t,
                                              TransposeMethod);
// @}

// The GLSL of a transpose kernel, for the benchmarks and the access-trace demonstration:
// storage blocks In { T src[]; } (binding 0) and Out { T dst[]; } (binding 1), uniforms
// `rows` and `cols` (uint). Naive runs one invocation per element over a (cols, rows) grid
// of `local_x` x `local_y` groups; the tiled kernels run one 32 x 32 tile per group of
// 32 x `local_y` invocations (local_y divides 32; each invocation moves 32 / local_y elements).
std::string transpose_kernel_source(TransposeMethod method, ElementType type = ElementType::Float32,
                                    int local_x = 32, int local_y = 8);

}  // namespace gpgpu
