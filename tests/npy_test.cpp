// Tests of gpgpu::npy: round trips of random arrays, files written by NumPy itself, every
// kind of malformed input, and the fuzzing corpus.
//
// Round trips compare bit patterns, not values: the reader and writer only move bytes, so
// any difference at all (a NaN payload, the sign of a zero) is a bug. Random float bits
// cover NaNs, infinities and subnormals along the way.
#include "gpgpu/npy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <unistd.h>

#include "gpgpu/error.hpp"

#ifndef GPGPU_NPY_CORPUS_DIR
#error "GPGPU_NPY_CORPUS_DIR must name tests/fuzz/corpus/npy (set by tests/npy_tests.cmake)"
#endif

namespace {

namespace fs = std::filesystem;
namespace npy = gpgpu::npy;
using npy::Array;
using npy::DType;

const std::vector<std::vector<std::size_t>> kShapes = {
    {}, {0}, {1}, {7}, {3, 4}, {4, 3}, {3, 0, 2}, {2, 3, 5}, {1, 1, 1, 1}, {2, 1, 3, 1, 2}, {257},
};

std::vector<std::byte> bytes_of(std::string_view text) {
  std::vector<std::byte> bytes;
  bytes.reserve(text.size());
  for (char c : text) bytes.push_back(static_cast<std::byte>(c));
  return bytes;
}

std::vector<std::byte> read_file(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  return bytes_of(std::string(std::istreambuf_iterator<char>(file), {}));
}

void write_file(const fs::path& path, std::span<const std::byte> bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(file.good()) << "cannot write " << path;
}

// A fresh directory per test, removed at the end.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    const auto* test = testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() / ("gpgpu-npy-test-" + std::to_string(::getpid()) + "-" +
                                         test->test_suite_name() + "-" + test->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// A .npy file built by hand around a header text, so tests control every byte.
std::vector<std::byte> forge(std::string_view header, std::span<const std::byte> data,
                             unsigned char major = 1, unsigned char minor = 0) {
  std::string file = "\x93NUMPY";
  file += static_cast<char>(major);
  file += static_cast<char>(minor);
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  for (std::size_t i = 0; i < length_bytes; ++i) {
    file += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  }
  file += header;
  std::vector<std::byte> bytes = bytes_of(file);
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

std::vector<std::byte> pattern_bytes(std::size_t count) {
  std::vector<std::byte> bytes(count);
  for (std::size_t i = 0; i < count; ++i) bytes[i] = static_cast<std::byte>(0xA5 ^ (i * 37));
  return bytes;
}

void expect_format_error(const std::function<void()>& action, const std::string& origin,
                         const std::vector<std::string>& words);

// Random 32-bit patterns; for float32 these include NaNs, infinities and subnormals.
template <npy::Element T>
std::vector<T> random_values(std::size_t count, std::mt19937& rng) {
  std::vector<T> values(count);
  for (T& value : values) value = std::bit_cast<T>(static_cast<std::uint32_t>(rng()));
  return values;
}

std::string shape_text(const std::vector<std::size_t>& shape) {
  std::string text = "(";
  for (std::size_t dimension : shape) text += std::to_string(dimension) + ",";
  return text + ")";
}

template <npy::Element T>
void expect_round_trip(const std::vector<std::size_t>& shape, std::mt19937& rng) {
  SCOPED_TRACE(npy::dtype_name(npy::dtype_of<T>()) + " shape " + shape_text(shape));
  std::size_t count = 1;
  for (std::size_t dimension : shape) count *= dimension;
  const std::vector<T> values = random_values<T>(count, rng);
  const Array original = npy::make<T>(shape, values);
  ASSERT_EQ(original.element_count(), count);

  const std::vector<std::byte> file = npy::serialize(original);
  // NumPy's layout: version 1.0, 16-bit header length, header ending in a newline, data
  // starting on a 64-byte boundary.
  ASSERT_GE(file.size(), 10u);
  EXPECT_EQ(file[6], std::byte{1});
  EXPECT_EQ(file[7], std::byte{0});
  const std::size_t header_size =
      std::to_integer<std::size_t>(file[8]) | (std::to_integer<std::size_t>(file[9]) << 8);
  const std::size_t data_begin = 10 + header_size;
  EXPECT_EQ(data_begin % 64, 0u);
  EXPECT_EQ(file[data_begin - 1], std::byte{'\n'});
  EXPECT_EQ(file.size(), data_begin + count * sizeof(T));

  const Array decoded = npy::parse(file, "round-trip.npy");
  EXPECT_EQ(decoded.dtype, npy::dtype_of<T>());
  EXPECT_EQ(decoded.shape, shape);
  const std::span<const T> decoded_values = decoded.view<T>();
  ASSERT_EQ(decoded_values.size(), count);
  for (std::size_t i = 0; i < count; ++i) {
    ASSERT_EQ(std::bit_cast<std::uint32_t>(decoded_values[i]),
              std::bit_cast<std::uint32_t>(values[i]))
        << "element " << i;
  }
}

TEST(NpyRoundTrip, RandomArraysOfEveryDtypeAndShape) {
  std::mt19937 rng(std::random_device{}());
  for (const auto& shape : kShapes) {
    expect_round_trip<float>(shape, rng);
    expect_round_trip<std::int32_t>(shape, rng);
    expect_round_trip<std::uint32_t>(shape, rng);
  }
}

TEST(NpyRoundTrip, SaveThenLoadGivesTheSameBytes) {
  ScratchDirectory directory;
  std::mt19937 rng(std::random_device{}());
  const std::vector<float> values = random_values<float>(6 * 35, rng);
  const Array original = npy::make<float>({6, 5, 7}, values);
  const fs::path path = directory.path() / "array.npy";
  npy::save(path, original);
  const Array loaded = npy::load(path);
  EXPECT_EQ(loaded.dtype, DType::Float32);
  EXPECT_EQ(loaded.shape, original.shape);
  EXPECT_EQ(loaded.data, original.data);
}

TEST(NpyRoundTrip, SixtyFourDimensionsAreTheLimit) {
  std::mt19937 rng(std::random_device{}());
  std::vector<std::size_t> shape(64, 1);
  shape[5] = 2;
  shape[63] = 3;
  expect_round_trip<std::int32_t>(shape, rng);

  // The longest header serialize() can write: 63 maximal dimensions and a 0 (no data).
  std::vector<std::size_t> widest(63, std::size_t{9223372036854775807u});
  widest.push_back(0);
  const Array empty = npy::make<float>(widest, std::span<const float>());
  const std::vector<std::byte> file = npy::serialize(empty);
  EXPECT_EQ(file[6], std::byte{1});  // still format 1.0
  EXPECT_EQ(npy::parse(file, "widest.npy").shape, widest);

  const std::vector<std::size_t> too_many(65, 1);
  const std::vector<float> one = {0.75f};
  EXPECT_THROW(npy::serialize(npy::make<float>(too_many, one)), gpgpu::ArgumentError);
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 65; ++i) header += "1, ";
  header += "), }";
  expect_format_error([&] { npy::parse(forge(header, bytes_of("\x01\x02\x03\x04")), "65.npy"); },
                      "65.npy", {"more than 64 dimensions"});
}

// Data bytes written out by hand from the IEEE-754 and two's-complement encodings, so
// that the expected values do not depend on this library's own writer.
TEST(NpyParse, DecodesHandWrittenLittleEndianBytes) {
  const std::vector<std::byte> floats = {
      std::byte{0x00}, std::byte{0x00}, std::byte{0xc0}, std::byte{0x3f},  // 1.5
      std::byte{0x00}, std::byte{0x00}, std::byte{0x10}, std::byte{0xc0},  // -2.25
  };
  const Array f = npy::parse(
      forge("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", floats), "f.npy");
  ASSERT_EQ(f.view<float>().size(), 2u);
  EXPECT_EQ(f.view<float>()[0], 1.5f);
  EXPECT_EQ(f.view<float>()[1], -2.25f);

  const std::vector<std::byte> ints = {std::byte{0xfe}, std::byte{0xff}, std::byte{0xff},
                                       std::byte{0xff}};  // -2
  const Array i =
      npy::parse(forge("{'descr': '<i4', 'fortran_order': False, 'shape': (), }\n", ints), "i.npy");
  EXPECT_TRUE(i.shape.empty());
  ASSERT_EQ(i.view<std::int32_t>().size(), 1u);
  EXPECT_EQ(i.view<std::int32_t>()[0], -2);

  const Array u = npy::parse(
      forge("{'descr': '<u4', 'fortran_order': False, 'shape': (1, 1), }\n", ints), "u.npy");
  ASSERT_EQ(u.view<std::uint32_t>().size(), 1u);
  EXPECT_EQ(u.view<std::uint32_t>()[0], 0xfffffffeu);
}

TEST(NpyParse, AcceptsEveryFormatVersionAndHeaderSpelling) {
  struct Case {
    const char* header;
    unsigned char major;
    DType dtype;
    std::vector<std::size_t> shape;
  };
  const std::vector<Case> cases = {
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n", 2, DType::Float32, {2, 3}},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }\n", 3, DType::Int32, {2, 3}},
      {"{'descr': '=u4', 'fortran_order': False, 'shape': (6,)}", 1, DType::Uint32, {6}},
      {"{'descr': '|i4', 'fortran_order': False, 'shape': (6,)}", 1, DType::Int32, {6}},
      {"{'descr': 'f4', 'fortran_order': False, 'shape': (6,)}", 1, DType::Float32, {6}},
      {"{\"shape\": (3L, 2L), \"descr\": \"<f4\", \"fortran_order\": False}",
       1,
       DType::Float32,
       {3, 2}},
      {" \t{ 'fortran_order' :False ,'shape':( 1 , 6 , ) , 'descr':'<u4' , }\n\n  ",
       1,
       DType::Uint32,
       {1, 6}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.header);
    const std::vector<std::byte> data = pattern_bytes(24);
    const Array array = npy::parse(forge(c.header, data, c.major), "spelling.npy");
    EXPECT_EQ(array.dtype, c.dtype);
    EXPECT_EQ(array.shape, c.shape);
    EXPECT_EQ(array.data, data);
  }
}

struct Malformed {
  const char* name;
  std::vector<std::byte> bytes;
  std::vector<std::string> words;  // each must appear in the message
};

std::vector<Malformed> malformed_inputs() {
  const std::string ok_header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }\n";
  const auto header_only = [](std::string_view header, std::size_t data_size = 0,
                              unsigned char major = 1, unsigned char minor = 0) {
    return forge(header, pattern_bytes(data_size), major, minor);
  };
  std::vector<std::byte> huge_v2_header = bytes_of(std::string("\x93NUMPY\x02\x00", 8));
  for (int i = 0; i < 4; ++i) huge_v2_header.push_back(std::byte{0xff});
  huge_v2_header.push_back(std::byte{'{'});
  return {
      {"empty", {}, {"truncated preamble", "found 0"}},
      {"png", bytes_of("\x89PNG\r\n\x1a\n0000"), {"not a NumPy .npy file", "\\x93NUMPY", "PNG"}},
      {"magic typo", bytes_of("\x93NUMPZ\x01\x00\x00\x00"), {"magic", "NUMPZ"}},
      {"only magic", bytes_of("\x93NUMPY"), {"truncated preamble", "found 6"}},
      {"version 4.0", header_only(ok_header, 48, 4), {"version 4.0", "expected 1.0, 2.0 or 3.0"}},
      {"version 1.1", header_only(ok_header, 48, 1, 1), {"version 1.1"}},
      {"version 2 preamble cut",
       bytes_of(std::string("\x93NUMPY\x02\x00\x10\x00", 10)),
       {"truncated preamble", "12 bytes"}},
      {"header shorter than announced",
       [&] {
         auto bytes = forge(ok_header, {});
         bytes.resize(30);
         return bytes;
       }(),
       {"truncated header", std::to_string(ok_header.size()), "20 bytes follow"}},
      {"4 GiB header announced", huge_v2_header, {"truncated header", "4294967295"}},
      {"header not a dict", header_only("['descr', '<f4']\n"), {"not a Python dict", "['descr'"}},
      {"empty header", header_only(""), {"not a Python dict", "found the end of the header"}},
      {"missing shape",
       header_only("{'descr': '<f4', 'fortran_order': False}"),
       {"missing key 'shape'"}},
      {"missing descr",
       header_only("{'fortran_order': False, 'shape': ()}"),
       {"missing key 'descr'"}},
      {"unknown key",
       header_only("{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}"),
       {"unexpected key 'x'"}},
      {"duplicate key",
       header_only("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}"),
       {"'descr' appears twice"}},
      {"float64",
       header_only("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", 24),
       {"unsupported dtype '<f8'", "float64", "a.astype(np.float32)"}},
      {"int64",
       header_only("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", 24),
       {"int64", "a.astype(np.int32)"}},
      {"uint8",
       header_only("{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", 3),
       {"uint8", "a.astype(np.uint32)"}},
      {"unicode",
       header_only("{'descr': '<U5', 'fortran_order': False, 'shape': (3,), }"),
       {"unsupported dtype '<U5'", "expected float32 '<f4'"}},
      {"big-endian",
       header_only("{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }", 12),
       {"big-endian", "'>f4'", "'<f4'"}},
      {"structured",
       header_only("{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (3,), }", 12),
       {"structured dtypes are not supported"}},
      {"fortran order",
       header_only("{'descr': '<f4', 'fortran_order': True, 'shape': (3, 4), }", 48),
       {"fortran_order is True", "C order"}},
      {"bad bool",
       header_only("{'descr': '<f4', 'fortran_order': Flase, 'shape': (3, 4), }", 48),
       {"expected True or False", "Flase"}},
      {"integer shape",
       header_only("{'descr': '<f4', 'fortran_order': False, 'shape': (5)}", 20),
       {"not a tuple", "(5,)"}},
      {"list shape",
       header_only("{'descr': '<f4', 'fortran_order': False, 'shape': [5]}", 20),
       {"expected a tuple", "[5]"}},
      {"negative dimension",
       header_only("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}"),
       {"negative dimension"}},
      {"dimension too large",
       header_only("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}"),
       {"too large", "9223372036854775807"}},
      {"byte count overflow",
       header_only("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}"),
       {"overflows", "(4294967296, 4294967296)"}},
      {"huge shape, tiny file",
       header_only("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,)}", 8),
       {"truncated data", "4398046511104 bytes", "found 8"}},
      {"data cut short",
       header_only(ok_header, 40),
       {"truncated data", "shape (3, 4) of float32", "needs 48 bytes", "found 40"}},
      {"data too long",
       header_only(ok_header, 56),
       {"unexpected bytes after the data", "needs 48 bytes", "found 56"}},
      {"unterminated string", header_only("{'descr: '<f4'}"), {"expected ':'"}},
      {"unterminated key", header_only("{'descr"), {"unterminated string"}},
      {"escape", header_only("{'de\\scr': '<f4'}"), {"escape sequences"}},
      {"text after dict",
       header_only("{'descr': '<f4', 'fortran_order': False, 'shape': ()} junk", 4),
       {"unexpected text after the header dict", "junk"}},
      {"missing comma",
       header_only("{'descr': '<f4' 'fortran_order': False, 'shape': ()}", 4),
       {"expected ',' or '}'", "'descr'"}},
      {"binary garbage in header",
       header_only(std::string("{\x01\xff", 3)),
       {"expected a quoted key", "\\x01\\xff"}},
  };
}

void expect_format_error(const std::function<void()>& action, const std::string& origin,
                         const std::vector<std::string>& words) {
  try {
    action();
    ADD_FAILURE() << "no gpgpu::FormatError was thrown";
  } catch (const gpgpu::FormatError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.rfind(origin + ": ", 0), 0u)
        << "message does not start with the origin: " << message;
    for (const std::string& word : words) {
      EXPECT_NE(message.find(word), std::string::npos)
          << "'" << word << "' is missing from: " << message;
    }
  }
}

TEST(NpyMalformed, ParseThrowsFormatErrorSayingWhatWasExpectedAndFound) {
  for (const Malformed& input : malformed_inputs()) {
    SCOPED_TRACE(input.name);
    expect_format_error([&] { npy::parse(input.bytes, "input.npy"); }, "input.npy", input.words);
  }
}

// load() reads a file in steps rather than whole; it must reach the same verdicts.
TEST(NpyMalformed, LoadThrowsTheSameErrorsAsParse) {
  ScratchDirectory directory;
  for (const Malformed& input : malformed_inputs()) {
    SCOPED_TRACE(input.name);
    const fs::path path = directory.path() / "malformed.npy";
    write_file(path, input.bytes);
    expect_format_error([&] { npy::load(path); }, path.string(), input.words);
  }
}

TEST(NpyErrors, LoadOfAMissingFileNamesTheFile) {
  ScratchDirectory directory;
  const fs::path path = directory.path() / "does-not-exist.npy";
  try {
    npy::load(path);
    ADD_FAILURE() << "no exception";
  } catch (const gpgpu::Error& error) {
    EXPECT_NE(std::string(error.what()).find(path.string()), std::string::npos) << error.what();
  }
  EXPECT_THROW(npy::load(directory.path()), gpgpu::Error);
}

TEST(NpyErrors, ViewWithTheWrongTypeThrows) {
  const std::vector<float> values = {1.5f, -2.5f, 3.25f};
  Array array = npy::make<float>({3}, values);
  EXPECT_THROW(array.view<std::int32_t>(), gpgpu::TypeMismatchError);
  EXPECT_THROW(std::as_const(array).view<std::uint32_t>(), gpgpu::ArgumentError);
  EXPECT_EQ(array.view<float>()[2], 3.25f);
}

TEST(NpyErrors, InconsistentArraysAreRefused) {
  const std::vector<std::int32_t> values = {5, -6, 7};
  EXPECT_THROW(npy::make<std::int32_t>({2, 2}, values), gpgpu::SizeMismatchError);
  Array array = npy::make<std::int32_t>({3}, values);
  array.data.pop_back();
  EXPECT_THROW(array.view<std::int32_t>(), gpgpu::SizeMismatchError);
  EXPECT_THROW(npy::serialize(array), gpgpu::ArgumentError);
  const Array overflowing{DType::Float32, {std::size_t{1} << 40, std::size_t{1} << 40}, {}};
  EXPECT_THROW(overflowing.element_count(), gpgpu::ArgumentError);
}

// Files named numpy-*.npy in the corpus were written by NumPy (make_npy_seeds.py) with
// element i of the flattened array set to the formula below.
void expect_numpy_seed_content(const Array& array, const std::string& name) {
  SCOPED_TRACE(name);
  const std::size_t count = array.element_count();
  for (std::size_t i = 0; i < count; ++i) {
    const auto step = static_cast<double>(i % 97);
    switch (array.dtype) {
      case DType::Float32:
        ASSERT_EQ(array.view<float>()[i], static_cast<float>(step * 0.5 - 20.25)) << i;
        break;
      case DType::Int32:
        ASSERT_EQ(array.view<std::int32_t>()[i], static_cast<std::int32_t>(step * 7919 - 300000))
            << i;
        break;
      case DType::Uint32:
        ASSERT_EQ(array.view<std::uint32_t>()[i],
                  static_cast<std::uint32_t>(4000000000.0 - step * 7919))
            << i;
        break;
    }
  }
}

TEST(NpyCorpus, EveryFileParsesConsistentlyOrThrowsFormatError) {
  const fs::path corpus = GPGPU_NPY_CORPUS_DIR;
  ASSERT_TRUE(fs::is_directory(corpus)) << corpus;
  std::size_t parsed = 0;
  std::size_t rejected = 0;
  std::size_t numpy_files = 0;
  for (const auto& entry : fs::directory_iterator(corpus)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    const std::vector<std::byte> bytes = read_file(entry.path());
    std::string parse_verdict;
    try {
      const Array array = npy::parse(bytes, name);
      ++parsed;
      const std::size_t count = array.element_count();
      ASSERT_EQ(array.data.size(), count * npy::dtype_size(array.dtype));
      const Array again = npy::parse(npy::serialize(array), name);
      EXPECT_EQ(again.dtype, array.dtype);
      EXPECT_EQ(again.shape, array.shape);
      EXPECT_EQ(again.data, array.data);
      const Array loaded = npy::load(entry.path());
      EXPECT_EQ(loaded.data, array.data);
      if (name.rfind("numpy-", 0) == 0) {
        ++numpy_files;
        expect_numpy_seed_content(array, name);
      }
    } catch (const gpgpu::FormatError& error) {
      ++rejected;
      EXPECT_NE(name.rfind("numpy-", 0), 0u)
          << "a file written by NumPy was rejected: " << error.what();
      // load() must reject the file too, with the same explanation.
      const std::string message = error.what();
      const std::string problem = message.substr(message.find(": ") + 2);
      try {
        npy::load(entry.path());
        ADD_FAILURE() << "load() accepted what parse() rejected: " << message;
      } catch (const gpgpu::FormatError& load_error) {
        EXPECT_NE(std::string(load_error.what()).find(problem), std::string::npos)
            << "parse: " << message << "\nload: " << load_error.what();
      }
    }
  }
  // The corpus holds valid files of each dtype, version and shape and many malformed ones.
  EXPECT_GE(numpy_files, 63u);
  EXPECT_GE(rejected, 30u);
  std::cout << "[ corpus   ] " << parsed << " files parsed, " << rejected << " rejected\n";
}

}  // namespace
