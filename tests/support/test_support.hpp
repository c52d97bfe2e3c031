// Shared by the tests: fresh random data, poisoned outputs, float32 error bounds, and one
// Context per test process (made on first use, on the device GPGPU_DEVICE names).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpgpu/context.hpp"

namespace gpgpu::test {

// The context every test in the process shares (tests run single-threaded per process).
Context& context();

// A generator seeded from the test's name and a per-process random value, printed on failure
// through SCOPED_TRACE, so each run uses fresh inputs yet a failure can be reproduced.
std::mt19937& rng();
std::uint32_t seed();

// Uniform in [lo, hi), never containing exact zeros.
std::vector<float> random_floats(std::size_t n, float lo = -1.0f, float hi = 1.0f);
std::vector<std::int32_t> random_ints(std::size_t n, std::int32_t lo, std::int32_t hi);
std::vector<std::uint32_t> random_uints(std::size_t n, std::uint32_t lo, std::uint32_t hi);

// A value no kernel produces by accident: a quiet NaN with a payload for floats, a fixed
// odd pattern for integers. Outputs are filled with it before every run.
constexpr float poison_float() {
  return std::numeric_limits<float>::quiet_NaN();
}
constexpr std::int32_t poison_int = -0x5A5A5A5B;
constexpr std::uint32_t poison_uint = 0xA5A5A5A5u;

// True when both arrays hold the same float bit patterns (NaN payloads, signed zeros): the
// check that a failed call left the caller's data untouched.
bool same_float_bits(std::span<const float> a, std::span<const float> b);

// What the gpgpu::Error thrown by `call` says, or "(no error)" when it returns normally.
std::string error_message_of(const std::function<void()>& call);

// Unit roundoff of float32: every correctly rounded operation errs by at most eps32 * |x|.
constexpr double eps32 = 1.0 / (1 << 24);

}  // namespace gpgpu::test
