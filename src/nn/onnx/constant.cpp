// Decoding and encoding TensorProto (constant.hpp).
#include "constant.hpp"

#include <bit>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpgpu/error.hpp"

namespace gpgpu::nn::onnx_detail {

namespace {

using ::onnx::TensorProto;

// IEEE half precision to float64.
double half_to_double(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  if (exponent == 31) return mantissa ? std::nan("") : sign * INFINITY;
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

// Element i of little-endian raw data of element type T.
template <class T>
T raw_at(const std::string& raw, std::size_t i) {
  T v;
  std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
  static_assert(std::endian::native == std::endian::little, "ONNX raw data is little-endian");
  return v;
}

template <class T>
std::vector<double> from_raw(const std::string& raw, std::size_t count, const std::string& where) {
  if (raw.size() != count * sizeof(T)) {
    throw FormatError(fmt::format("{}: raw data of {} bytes for {} elements of {} bytes", where,
                                  raw.size(), count, sizeof(T)));
  }
  std::vector<double> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<double>(raw_at<T>(raw, i));
  return values;
}

template <class Field>
std::vector<double> from_field(const Field& field, std::size_t count, const std::string& where) {
  if (static_cast<std::size_t>(field.size()) != count) {
    throw FormatError(
        fmt::format("{}: {} values stored for {} elements", where, field.size(), count));
  }
  return std::vector<double>(field.begin(), field.end());
}

std::vector<double> decode_values(const TensorProto& t, std::size_t count,
                                  const std::string& where) {
  const bool raw = t.has_raw_data();
  switch (t.data_type()) {
    case TensorProto::FLOAT:
      return raw ? from_raw<float>(t.raw_data(), count, where)
                 : from_field(t.float_data(), count, where);
    case TensorProto::DOUBLE:
      return raw ? from_raw<double>(t.raw_data(), count, where)
                 : from_field(t.double_data(), count, where);
    case TensorProto::INT64:
      return raw ? from_raw<std::int64_t>(t.raw_data(), count, where)
                 : from_field(t.int64_data(), count, where);
    case TensorProto::INT32:
    case TensorProto::INT16:
    case TensorProto::INT8:
    case TensorProto::UINT16:
    case TensorProto::UINT8:
    case TensorProto::BOOL:
    case TensorProto::FLOAT16:
      break;
    default:
      throw UnsupportedError(fmt::format(
          "{}: element type {} is not read (gpgpu reads float, double, float16 and integer "
          "constants)",
          where, TensorProto::DataType_Name(static_cast<TensorProto::DataType>(t.data_type()))));
  }
  // The narrow types: int32_data holds each value (float16 as its bits), raw data packs them.
  if (!raw) {
    auto v = from_field(t.int32_data(), count, where);
    if (t.data_type() == TensorProto::FLOAT16) {
      for (auto& x : v) x = half_to_double(static_cast<std::uint16_t>(x));
    }
    return v;
  }
  switch (t.data_type()) {
    case TensorProto::INT32:
      return from_raw<std::int32_t>(t.raw_data(), count, where);
    case TensorProto::INT16:
      return from_raw<std::int16_t>(t.raw_data(), count, where);
    case TensorProto::UINT16:
      return from_raw<std::uint16_t>(t.raw_data(), count, where);
    case TensorProto::INT8:
      return from_raw<std::int8_t>(t.raw_data(), count, where);
    case TensorProto::FLOAT16: {
      auto v = from_raw<std::uint16_t>(t.raw_data(), count, where);
      for (auto& x : v) x = half_to_double(static_cast<std::uint16_t>(x));
      return v;
    }
    default:  // UINT8, BOOL
      return from_raw<std::uint8_t>(t.raw_data(), count, where);
  }
}

bool is_integer_type(int type) {
  return type != TensorProto::FLOAT && type != TensorProto::DOUBLE && type != TensorProto::FLOAT16;
}

}  // namespace

std::string Constant::dims_text() const {
  if (dims.size() == 1) return fmt::format("({},)", dims[0]);
  return fmt::format("({})", fmt::join(dims, ", "));
}

std::int64_t whole(double value, const std::string& where) {
  constexpr double limit = 2147483648.0;
  if (!(value == std::floor(value) && value > -limit && value < limit)) {
    throw FormatError(fmt::format("{}: {} is not a whole number within +-2^31", where, value));
  }
  return static_cast<std::int64_t>(value);
}

std::size_t element_count(std::span<const std::int64_t> dims, const std::string& where) {
  std::size_t count = 1;
  for (std::int64_t d : dims) {
    if (d < 0) throw FormatError(fmt::format("{}: negative extent {}", where, d));
    if (d != 0 && count > (std::size_t{1} << 31) / static_cast<std::size_t>(d)) {
      throw FormatError(
          fmt::format("{}: more than 2^31 elements ({})", where, fmt::join(dims, "x")));
    }
    count *= static_cast<std::size_t>(d);
  }
  return count;
}

Constant decode_tensor(const TensorProto& t, const std::string& where) {
  if (t.data_location() == TensorProto::EXTERNAL) {
    throw UnsupportedError(fmt::format(
        "{}: its data is in an external file; gpgpu reads models with their weights inside "
        "(onnx.load then onnx.save without save_as_external_data)",
        where));
  }
  if (t.has_segment())
    throw UnsupportedError(fmt::format("{}: segmented tensors are not read", where));
  Constant c;
  c.dims.assign(t.dims().begin(), t.dims().end());
  c.values = decode_values(t, element_count(c.dims, where), where);
  c.integer = is_integer_type(t.data_type());
  return c;
}

void encode_floats(TensorProto& t, const std::string& name, const std::vector<std::int64_t>& dims,
                   std::span<const float> values) {
  t.set_name(name);
  t.set_data_type(TensorProto::FLOAT);
  for (auto d : dims) t.add_dims(d);
  t.set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size_bytes()));
}

void encode_ints(TensorProto& t, const std::string& name, const std::vector<std::int64_t>& dims,
                 std::span<const std::int64_t> values) {
  t.set_name(name);
  t.set_data_type(TensorProto::INT64);
  for (auto d : dims) t.add_dims(d);
  for (auto v : values) t.add_int64_data(v);
}

}  // namespace gpgpu::nn::onnx_detail
