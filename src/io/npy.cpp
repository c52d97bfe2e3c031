// NumPy .npy reading and writing.
//
// Layout of a .npy file: the magic "\x93NUMPY", a major and a minor version byte, the
// header length (2 bytes little-endian in 1.0, 4 bytes in 2.0 and 3.0), the header — a
// Python dict literal such as {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// padded with spaces and a newline — and then the raw data.
//
// The header comes from an untrusted file, so it is read by a small strict parser written
// for exactly this grammar rather than by anything general, and every length it implies is
// checked against the bytes actually present before anything is allocated.
#include "gpgpu/npy.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

#include "gpgpu/error.hpp"

namespace gpgpu::npy {

// The in-memory data is little-endian by contract and is copied to and from files as is.
static_assert(std::endian::native == std::endian::little,
              "gpgpu::npy assumes a little-endian host");

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr std::size_t kVersion1PreambleSize = 10;  // magic, 2 version bytes, uint16 length
constexpr std::size_t kVersion2PreambleSize = 12;  // magic, 2 version bytes, uint32 length
constexpr std::size_t kDataAlignment = 64;         // what NumPy aligns the data start to
constexpr std::size_t kElementSize = 4;
// NumPy stores dimensions as intp; a larger value cannot come from NumPy.
constexpr std::uint64_t kMaxDimension = std::numeric_limits<std::int64_t>::max();
// NumPy 2's NPY_MAXDIMS (NumPy 1's is 32): no NumPy can make or load an array of more.
// It also keeps the header that serialize() writes far below format 1.0's 64 KiB limit.
constexpr std::size_t kMaxDimensions = 64;
// How much of an offending input an error message quotes.
constexpr std::size_t kQuoteLimit = 24;

[[noreturn]] void fail(const std::string& origin, const std::string& problem) {
  throw FormatError(origin + ": " + problem);
}

// Renders bytes for a message the way Python's repr() renders a bytes literal: printable
// ASCII as is, \n \r \t by name, everything else as \xNN, cut after kQuoteLimit bytes, so
// that binary garbage cannot mangle the message.
std::string quote(std::string_view bytes) {
  const std::string_view shown = bytes.substr(0, kQuoteLimit);
  const char delimiter =
      shown.find('\'') != std::string_view::npos && shown.find('"') == std::string_view::npos
          ? '"'
          : '\'';
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(1, delimiter);
  for (const char c : shown) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte >= 0x20 && byte < 0x7f && c != '\\' && c != delimiter) {
      out += c;
    } else {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    }
  }
  out += delimiter;
  if (bytes.size() > kQuoteLimit) out += "...";
  return out;
}

std::string_view as_chars(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// Python's repr of a shape tuple: (), (5,), (3, 4).
std::string shape_repr(std::span<const std::size_t> shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  if (shape.size() == 1) out += ",";
  out += ")";
  return out;
}

// Product of the dimensions, or nothing when it does not fit in std::size_t. A zero
// dimension makes the product 0 however large the others are.
std::optional<std::size_t> checked_element_count(std::span<const std::size_t> shape) {
  for (std::size_t dimension : shape) {
    if (dimension == 0) return 0;
  }
  std::size_t count = 1;
  for (std::size_t dimension : shape) {
    if (count > std::numeric_limits<std::size_t>::max() / dimension) return std::nullopt;
    count *= dimension;
  }
  return count;
}

std::optional<std::size_t> checked_byte_count(std::span<const std::size_t> shape) {
  const auto count = checked_element_count(shape);
  if (!count || *count > std::numeric_limits<std::size_t>::max() / kElementSize) {
    return std::nullopt;
  }
  return *count * kElementSize;
}

std::uint32_t read_little_endian(std::span<const std::byte> bytes) {
  std::uint32_t value = 0;
  for (std::size_t i = bytes.size(); i-- > 0;) {
    value = (value << 8) | std::to_integer<std::uint32_t>(bytes[i]);
  }
  return value;
}

// Where the header lies, as announced by the fixed-size preamble.
struct Preamble {
  std::size_t header_begin;
  std::size_t header_size;
};

// Checks magic, version and header length. `prefix` holds the first bytes of an input of
// `total_size` bytes (at least the preamble, when the input is that long).
Preamble read_preamble(std::span<const std::byte> prefix, std::uint64_t total_size,
                       const std::string& origin) {
  const std::string_view text = as_chars(prefix);
  const std::string_view magic_found = text.substr(0, kMagic.size());
  if (magic_found != kMagic.substr(0, magic_found.size())) {
    fail(origin, "not a NumPy .npy file: expected the magic string " + quote(kMagic) +
                     " at the start, found " + quote(magic_found));
  }
  if (text.size() < kMagic.size() + 2) {
    fail(origin, "truncated preamble: expected at least " + std::to_string(kVersion1PreambleSize) +
                     " bytes (magic string, version, header length), found " +
                     std::to_string(total_size));
  }
  const auto major = static_cast<unsigned char>(text[kMagic.size()]);
  const auto minor = static_cast<unsigned char>(text[kMagic.size() + 1]);
  const std::string version = std::to_string(major) + "." + std::to_string(minor);
  if (minor != 0 || major < 1 || major > 3) {
    fail(origin, "unsupported .npy format version " + version + ": expected 1.0, 2.0 or 3.0");
  }
  const std::size_t preamble_size = major == 1 ? kVersion1PreambleSize : kVersion2PreambleSize;
  if (prefix.size() < preamble_size) {
    fail(origin, "truncated preamble: format " + version + " needs " +
                     std::to_string(preamble_size) + " bytes before the header, found " +
                     std::to_string(total_size));
  }
  const std::size_t header_size =
      read_little_endian(prefix.subspan(kMagic.size() + 2, preamble_size - kMagic.size() - 2));
  if (header_size > total_size - preamble_size) {
    fail(origin, "truncated header: the preamble announces a header of " +
                     std::to_string(header_size) + " bytes, but only " +
                     std::to_string(total_size - preamble_size) + " bytes follow");
  }
  return {preamble_size, header_size};
}

// What the header dict says, as written in the file.
struct HeaderFields {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::size_t> shape;
};

// A strict parser for the one Python literal a .npy header may hold: a dict with exactly
// the keys 'descr' (a string), 'fortran_order' (True or False) and 'shape' (a tuple of
// non-negative integers), in any order, with an optional trailing comma, surrounded by
// whitespace. String escapes and anything else Python would accept are refused.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& origin) : text_(text), origin_(origin) {}

  HeaderFields parse() {
    skip_whitespace();
    if (!consume('{')) {
      fail("the header is not a Python dict literal: expected '{', found " + rest());
    }
    HeaderFields fields;
    bool seen_descr = false;
    bool seen_fortran_order = false;
    bool seen_shape = false;
    skip_whitespace();
    while (!consume('}')) {
      const std::string key = parse_string("a quoted key or '}'");
      skip_whitespace();
      if (!consume(':')) fail("expected ':' after the key " + quote(key) + ", found " + rest());
      skip_whitespace();
      if (key == "descr") {
        mark_seen(seen_descr, key);
        if (peek() == '[') {
          fail(
              "structured dtypes are not supported: expected a descr string such as '<f4', "
              "found a list");
        }
        fields.descr = parse_string("a descr string such as '<f4'");
      } else if (key == "fortran_order") {
        mark_seen(seen_fortran_order, key);
        fields.fortran_order = parse_bool(key);
      } else if (key == "shape") {
        mark_seen(seen_shape, key);
        fields.shape = parse_shape();
      } else {
        fail("unexpected key " + quote(key) +
             " in the header: expected only 'descr', 'fortran_order' and 'shape'");
      }
      skip_whitespace();
      if (consume(',')) {
        skip_whitespace();
      } else if (peek() != '}') {
        fail("expected ',' or '}' after the value of '" + key + "', found " + rest());
      }
    }
    skip_whitespace();
    if (position_ != text_.size()) {
      fail("unexpected text after the header dict: expected only spaces and a newline, found " +
           rest());
    }
    const char* missing = !seen_descr           ? "descr"
                          : !seen_fortran_order ? "fortran_order"
                          : !seen_shape         ? "shape"
                                                : nullptr;
    if (missing != nullptr) {
      fail(std::string("missing key '") + missing +
           "' in the header: expected the keys 'descr', 'fortran_order' and 'shape'");
    }
    return fields;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    npy::fail(origin_, problem + " (header offset " + std::to_string(position_) + ")");
  }

  // What follows the current position, for "found ..." in messages.
  std::string rest() const {
    return position_ < text_.size() ? quote(text_.substr(position_)) : "the end of the header";
  }

  // The next character, or '\0' at the end (a NUL inside the header is never valid
  // where peek() is used, so the two need not be told apart).
  char peek() const { return position_ < text_.size() ? text_[position_] : '\0'; }

  bool consume(char expected) {
    if (position_ < text_.size() && text_[position_] == expected) {
      ++position_;
      return true;
    }
    return false;
  }

  void skip_whitespace() {
    while (position_ < text_.size() && (text_[position_] == ' ' || text_[position_] == '\t' ||
                                        text_[position_] == '\n' || text_[position_] == '\r')) {
      ++position_;
    }
  }

  void mark_seen(bool& seen, const std::string& key) {
    if (seen) fail("the key '" + key + "' appears twice in the header");
    seen = true;
  }

  std::string parse_string(const char* what) {
    const char quote_char = peek();
    if (quote_char != '\'' && quote_char != '"') {
      fail(std::string("expected ") + what + ", found " + rest());
    }
    const std::size_t begin = ++position_;
    while (position_ < text_.size() && text_[position_] != quote_char) {
      if (text_[position_] == '\\') fail("escape sequences are not supported in header strings");
      if (text_[position_] == '\n') break;
      ++position_;
    }
    if (position_ >= text_.size() || text_[position_] != quote_char) {
      position_ = begin - 1;
      fail("unterminated string in the header: expected a closing " + std::string(1, quote_char) +
           ", found " + rest());
    }
    return std::string(text_.substr(begin, position_++ - begin));
  }

  std::string_view parse_identifier() {
    const std::size_t begin = position_;
    while (position_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[position_])) != 0 ||
            text_[position_] == '_')) {
      ++position_;
    }
    return text_.substr(begin, position_ - begin);
  }

  bool parse_bool(const std::string& key) {
    const std::size_t begin = position_;
    const std::string_view word = parse_identifier();
    if (word == "True") return true;
    if (word == "False") return false;
    position_ = begin;
    fail("expected True or False for '" + key + "', found " + rest());
  }

  std::vector<std::size_t> parse_shape() {
    if (!consume('(')) fail("expected a tuple such as (3, 4) for 'shape', found " + rest());
    std::vector<std::size_t> shape;
    bool trailing_comma = false;
    skip_whitespace();
    while (!consume(')')) {
      if (shape.size() == kMaxDimensions) {
        fail("'shape' has more than " + std::to_string(kMaxDimensions) +
             " dimensions, NumPy's limit");
      }
      shape.push_back(parse_dimension());
      skip_whitespace();
      trailing_comma = consume(',');
      skip_whitespace();
      if (!trailing_comma && peek() != ')') {
        fail("expected ',' or ')' in the shape tuple, found " + rest());
      }
    }
    // In Python (5) is the integer 5, not a tuple; NumPy itself would reject it.
    if (shape.size() == 1 && !trailing_comma) {
      fail("'shape' is (" + std::to_string(shape[0]) +
           "), an integer in Python, not a tuple: expected (" + std::to_string(shape[0]) + ",)");
    }
    return shape;
  }

  std::size_t parse_dimension() {
    if (peek() == '-') fail("negative dimension in 'shape': found " + rest());
    const std::size_t begin = position_;
    while (peek() >= '0' && peek() <= '9') ++position_;
    const std::string_view digits = text_.substr(begin, position_ - begin);
    if (digits.empty()) fail("expected a dimension (an integer), found " + rest());
    std::uint64_t value = 0;
    for (char digit_char : digits) {
      const auto digit = static_cast<std::uint64_t>(digit_char - '0');
      if (value > (kMaxDimension - digit) / 10) {
        position_ = begin;
        fail("dimension " + std::string(digits) + " in 'shape' is too large: expected at most " +
             std::to_string(kMaxDimension));
      }
      value = value * 10 + digit;
    }
    // Python 2 wrote long integers as 3L; NumPy still reads such headers.
    if (peek() == 'L' || peek() == 'l') ++position_;
    if (value > std::numeric_limits<std::size_t>::max()) {
      position_ = begin;
      fail("dimension " + std::string(digits) + " in 'shape' does not fit in std::size_t");
    }
    return static_cast<std::size_t>(value);
  }

  std::string_view text_;
  const std::string& origin_;
  std::size_t position_ = 0;
};

// A NumPy type that gpgpu does not read, with the conversion that makes it readable.
struct UnsupportedType {
  std::string_view code;  // without byte order
  std::string_view name;
  std::string_view convert_to;  // empty when no lossless-enough conversion exists
};

constexpr std::array<UnsupportedType, 13> kUnsupportedTypes = {{
    {"b1", "bool", "np.int32"},
    {"?", "bool", "np.int32"},
    {"i1", "int8", "np.int32"},
    {"i2", "int16", "np.int32"},
    {"i8", "int64", "np.int32"},
    {"u1", "uint8", "np.uint32"},
    {"u2", "uint16", "np.uint32"},
    {"u8", "uint64", "np.uint32"},
    {"f2", "float16", "np.float32"},
    {"f8", "float64", "np.float32"},
    {"f16", "float128", "np.float32"},
    {"c8", "complex64", ""},
    {"c16", "complex128", ""},
}};

DType interpret_descr(const std::string& descr, const std::string& origin) {
  std::string_view code = descr;
  char byte_order = '\0';
  if (!code.empty() && (code[0] == '<' || code[0] == '>' || code[0] == '|' || code[0] == '=')) {
    byte_order = code[0];
    code.remove_prefix(1);
  }
  std::optional<DType> dtype;
  if (code == "f4") dtype = DType::Float32;
  if (code == "i4") dtype = DType::Int32;
  if (code == "u4") dtype = DType::Uint32;
  if (dtype) {
    if (byte_order == '>') {
      fail(origin, "big-endian data (descr " + quote(descr) +
                       ") is not supported: expected little-endian '<" + std::string(code) +
                       "'; convert with a.astype('<" + std::string(code) + "')");
    }
    // '=' (native) and '|' (not applicable) read as native, which the static_assert above
    // pins to little-endian; a missing byte order means native too.
    return *dtype;
  }
  const auto* known = std::find_if(kUnsupportedTypes.begin(), kUnsupportedTypes.end(),
                                   [&](const UnsupportedType& type) { return type.code == code; });
  const bool is_known = known != kUnsupportedTypes.end();
  std::string problem = "unsupported dtype " + quote(descr);
  if (is_known) problem += " (" + std::string(known->name) + ")";
  problem += ": expected float32 '<f4', int32 '<i4' or uint32 '<u4'";
  if (is_known && !known->convert_to.empty()) {
    problem += "; convert with a.astype(" + std::string(known->convert_to) + ")";
  }
  fail(origin, problem);
}

// The decoded header: element type, shape and how many data bytes must follow it.
struct Header {
  DType dtype;
  std::vector<std::size_t> shape;
  std::size_t data_size;
};

Header read_header(std::string_view header_text, const std::string& origin) {
  HeaderFields fields = HeaderParser(header_text, origin).parse();
  const DType dtype = interpret_descr(fields.descr, origin);
  if (fields.fortran_order) {
    fail(origin,
         "fortran_order is True (column-major data): gpgpu needs C order (fortran_order "
         "False); save np.ascontiguousarray(a) instead");
  }
  const auto data_size = checked_byte_count(fields.shape);
  if (!data_size) {
    fail(origin, "shape " + shape_repr(fields.shape) +
                     " has more elements than fit in memory (the byte count overflows)");
  }
  return {dtype, std::move(fields.shape), *data_size};
}

void check_data_size(const Header& header, std::uint64_t available, const std::string& origin) {
  if (header.data_size == available) return;
  const std::string needs = "shape " + shape_repr(header.shape) + " of " +
                            dtype_name(header.dtype) + " needs " +
                            std::to_string(header.data_size) + " bytes after the header, found " +
                            std::to_string(available);
  if (header.data_size > available) fail(origin, "truncated data: " + needs);
  fail(origin, "unexpected bytes after the data: " + needs);
}

std::string describe_array(const Array& array) {
  return "shape " + shape_repr(array.shape) + " of " + dtype_name(array.dtype);
}

// Throws unless the array holds exactly the bytes its shape needs.
void check_consistent(const Array& array, const char* caller) {
  const auto needed = checked_byte_count(array.shape);
  if (!needed) {
    throw SizeMismatchError(std::string(caller) + ": " + describe_array(array) +
                            " has more elements than fit in memory");
  }
  if (*needed != array.data.size()) {
    throw SizeMismatchError(std::string(caller) + ": " + describe_array(array) + " needs " +
                            std::to_string(*needed) + " bytes of data, found " +
                            std::to_string(array.data.size()));
  }
}

void check_view(const Array& array, DType requested) {
  if (array.dtype != requested) {
    throw TypeMismatchError("npy::Array::view: the array holds " + dtype_name(array.dtype) +
                            ", not " + dtype_name(requested));
  }
  check_consistent(array, "npy::Array::view");
}

std::string descr_of(DType dtype) {
  switch (dtype) {
    case DType::Float32:
      return "<f4";
    case DType::Int32:
      return "<i4";
    case DType::Uint32:
      return "<u4";
  }
  throw ArgumentError("npy: invalid DType value " + std::to_string(static_cast<int>(dtype)));
}

[[noreturn]] void fail_io(const std::filesystem::path& path, const std::string& action) {
  throw Error(path.string() + ": cannot " + action + ": " + std::strerror(errno));
}

}  // namespace

std::string dtype_name(DType dtype) {
  switch (dtype) {
    case DType::Float32:
      return "float32";
    case DType::Int32:
      return "int32";
    case DType::Uint32:
      return "uint32";
  }
  throw ArgumentError("npy: invalid DType value " + std::to_string(static_cast<int>(dtype)));
}

std::size_t dtype_size(DType /*dtype*/) {
  return kElementSize;
}

std::size_t Array::element_count() const {
  const auto count = checked_element_count(shape);
  if (!count) {
    throw SizeMismatchError("npy::Array::element_count: shape " + shape_repr(shape) +
                            " has more elements than std::size_t can count");
  }
  return *count;
}

template <Element T>
std::span<const T> Array::view() const {
  check_view(*this, dtype_of<T>());
  // The bytes come from operator new, which aligns them for any fundamental type.
  return {reinterpret_cast<const T*>(data.data()), data.size() / sizeof(T)};
}

template <Element T>
std::span<T> Array::view() {
  check_view(*this, dtype_of<T>());
  return {reinterpret_cast<T*>(data.data()), data.size() / sizeof(T)};
}

template std::span<const float> Array::view<float>() const;
template std::span<const std::int32_t> Array::view<std::int32_t>() const;
template std::span<const std::uint32_t> Array::view<std::uint32_t>() const;
template std::span<float> Array::view<float>();
template std::span<std::int32_t> Array::view<std::int32_t>();
template std::span<std::uint32_t> Array::view<std::uint32_t>();

template <Element T>
Array make(std::vector<std::size_t> shape, std::span<const T> values) {
  Array array{dtype_of<T>(), std::move(shape), {}};
  const auto count = checked_element_count(array.shape);
  if (!count || *count != values.size()) {
    throw SizeMismatchError("npy::make: shape " + shape_repr(array.shape) + " needs " +
                            (count ? std::to_string(*count) : std::string("too many")) +
                            " values, found " + std::to_string(values.size()));
  }
  array.data.resize(values.size_bytes());
  if (!values.empty()) std::memcpy(array.data.data(), values.data(), values.size_bytes());
  return array;
}

template Array make<float>(std::vector<std::size_t>, std::span<const float>);
template Array make<std::int32_t>(std::vector<std::size_t>, std::span<const std::int32_t>);
template Array make<std::uint32_t>(std::vector<std::size_t>, std::span<const std::uint32_t>);

Array parse(std::span<const std::byte> bytes, const std::string& origin) {
  const Preamble preamble = read_preamble(bytes, bytes.size(), origin);
  Header header =
      read_header(as_chars(bytes.subspan(preamble.header_begin, preamble.header_size)), origin);
  const std::size_t data_begin = preamble.header_begin + preamble.header_size;
  check_data_size(header, bytes.size() - data_begin, origin);
  const auto data = bytes.subspan(data_begin);
  return Array{header.dtype, std::move(header.shape),
               std::vector<std::byte>(data.begin(), data.end())};
}

Array load(const std::filesystem::path& path) {
  const std::string origin = path.string();
  std::error_code error;
  const std::uintmax_t file_size = std::filesystem::file_size(path, error);
  if (error) throw Error(origin + ": cannot read: " + error.message());
  std::ifstream file(path, std::ios::binary);
  if (!file) fail_io(path, "open for reading");

  // Read only as far as each step needs, so that the data is read once, straight into the
  // Array, and only after the header has been checked against the file's size.
  auto read_exactly = [&](std::byte* destination, std::size_t size) {
    file.read(reinterpret_cast<char*>(destination), static_cast<std::streamsize>(size));
    if (static_cast<std::size_t>(file.gcount()) != size) {
      throw Error(origin + ": cannot read: the file ended early (modified while being read?)");
    }
  };
  std::array<std::byte, kVersion2PreambleSize> prefix{};
  const auto prefix_size =
      static_cast<std::size_t>(std::min<std::uintmax_t>(file_size, prefix.size()));
  read_exactly(prefix.data(), prefix_size);
  const Preamble preamble = read_preamble(std::span(prefix).first(prefix_size), file_size, origin);

  // The preamble was read whole when it is shorter than the prefix (format 1.0): the
  // first header bytes are then already in the prefix.
  std::vector<std::byte> header_bytes(preamble.header_size);
  const std::size_t header_in_prefix =
      std::min(prefix_size - preamble.header_begin, preamble.header_size);
  std::copy_n(prefix.begin() + static_cast<std::ptrdiff_t>(preamble.header_begin), header_in_prefix,
              header_bytes.begin());
  read_exactly(header_bytes.data() + header_in_prefix, header_bytes.size() - header_in_prefix);
  Header header = read_header(as_chars(header_bytes), origin);

  check_data_size(header, file_size - preamble.header_begin - preamble.header_size, origin);
  Array array{header.dtype, std::move(header.shape), std::vector<std::byte>(header.data_size)};
  read_exactly(array.data.data(), array.data.size());
  return array;
}

std::vector<std::byte> serialize(const Array& array) {
  check_consistent(array, "npy::serialize");
  if (array.shape.size() > kMaxDimensions) {
    throw ArgumentError("npy::serialize: the shape has " + std::to_string(array.shape.size()) +
                        " dimensions, more than NumPy's limit of " +
                        std::to_string(kMaxDimensions));
  }
  std::string header = "{'descr': '" + descr_of(array.dtype) +
                       "', 'fortran_order': False, 'shape': " + shape_repr(array.shape) + ", }";
  // Pad with spaces and end with a newline, as NumPy does, so that the data starts on a
  // 64-byte boundary. With at most kMaxDimensions dimensions the header stays far below
  // 65535 bytes, so format 1.0 always suffices.
  const std::size_t unpadded = kVersion1PreambleSize + header.size() + 1;
  const std::size_t header_size =
      header.size() + 1 + (kDataAlignment - unpadded % kDataAlignment) % kDataAlignment;
  header.resize(header_size - 1, ' ');
  header += '\n';

  std::vector<std::byte> bytes;
  bytes.reserve(kVersion1PreambleSize + header_size + array.data.size());
  for (char c : kMagic) bytes.push_back(static_cast<std::byte>(c));
  bytes.push_back(std::byte{1});  // version 1.0
  bytes.push_back(std::byte{0});
  bytes.push_back(static_cast<std::byte>(header_size & 0xff));
  bytes.push_back(static_cast<std::byte>(header_size >> 8));
  for (char c : header) bytes.push_back(static_cast<std::byte>(c));
  bytes.insert(bytes.end(), array.data.begin(), array.data.end());
  return bytes;
}

void save(const std::filesystem::path& path, const Array& array) {
  const std::vector<std::byte> bytes = serialize(array);
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) fail_io(path, "open for writing");
  file.write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  file.close();
  if (!file) fail_io(path, "write");
}

}  // namespace gpgpu::npy
