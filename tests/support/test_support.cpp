#include "test_support.hpp"

#include <cstring>
#include <memory>

#include "gpgpu/error.hpp"

namespace gpgpu::test {

Context& context() {
  static auto* ctx = new Context();  // lives until exit; tests never tear it down mid-run
  return *ctx;
}

std::uint32_t seed() {
  static const std::uint32_t value = std::random_device{}();
  return value;
}

std::mt19937& rng() {
  static std::mt19937 generator;
  static const ::testing::TestInfo* last = nullptr;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  if (info != last) {
    last = info;
    std::seed_seq seq{seed(),
                      static_cast<std::uint32_t>(std::hash<std::string>{}(
                          info ? std::string(info->test_suite_name()) + "." + info->name() : ""))};
    generator.seed(seq);
    if (info) ::testing::Test::RecordProperty("seed", static_cast<int>(seed() & 0x7fffffff));
  }
  return generator;
}

std::vector<float> random_floats(std::size_t n, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) {
    do {
      x = dist(rng());
    } while (x == 0.0f);
  }
  return v;
}

std::vector<std::int32_t> random_ints(std::size_t n, std::int32_t lo, std::int32_t hi) {
  std::uniform_int_distribution<std::int32_t> dist(lo, hi);
  std::vector<std::int32_t> v(n);
  for (auto& x : v) {
    do {
      x = dist(rng());
    } while (x == 0);
  }
  return v;
}

std::vector<std::uint32_t> random_uints(std::size_t n, std::uint32_t lo, std::uint32_t hi) {
  std::uniform_int_distribution<std::uint32_t> dist(lo, hi);
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) {
    do {
      x = dist(rng());
    } while (x == 0);
  }
  return v;
}

bool same_float_bits(std::span<const float> a, std::span<const float> b) {
  // memcmp must not see the null data() of an empty array, even with a zero length.
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size_bytes()) == 0);
}

std::string error_message_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace gpgpu::test
