// Internal: constants of an ONNX graph — initializers, Constant nodes' values and what the
// shape computations before a Reshape give — decoded from TensorProto into float64 (exact
// for float32 values and for integers up to 2^53), and float32 arrays encoded into
// TensorProto for export.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace gpgpu::nn::onnx_detail {

// The batch size, which only a run knows, where a shape computation reads it: NaN (so that
// any arithmetic on it stays NaN and is caught where a shape is used).
inline constexpr double batch_extent = std::numeric_limits<double>::quiet_NaN();

struct Constant {
  std::vector<std::int64_t> dims;
  std::vector<double> values;  // row-major
  bool integer = false;        // stored as an integer type (a shape, an index)
  std::size_t size() const { return values.size(); }
  bool scalar_like() const { return values.size() == 1; }
  std::string dims_text() const;  // "(3, 1, 1)", "()" for a scalar
};

// The constant a TensorProto holds (float, double, float16, int32, int64, int8/16, uint8/16,
// bool), checked against its dims. `where` names it in errors: FormatError for data that
// does not match the dims, UnsupportedError for external data and other element types.
Constant decode_tensor(const ::onnx::TensorProto& tensor, const std::string& where);

// A constant's value as an index or extent (an axis, a reshape target): FormatError naming
// `where` unless it is a whole number within +-2^31.
std::int64_t whole(double value, const std::string& where);

// The number of elements of `dims`, or FormatError naming `where` when an extent is
// negative or the product passes 2^31 (no model gpgpu runs has a larger constant).
std::size_t element_count(std::span<const std::int64_t> dims, const std::string& where);

// A float32 initializer (raw little-endian data).
void encode_floats(::onnx::TensorProto& tensor, const std::string& name,
                   const std::vector<std::int64_t>& dims, std::span<const float> values);
// An int64 initializer.
void encode_ints(::onnx::TensorProto& tensor, const std::string& name,
                 const std::vector<std::int64_t>& dims, std::span<const std::int64_t> values);

}  // namespace gpgpu::nn::onnx_detail
