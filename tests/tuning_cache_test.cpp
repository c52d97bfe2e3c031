// Primitive shapes kept on disk (store_primitive_tuning): a later Context on the same device
// and driver starts from them (and sorts correctly with them), an entry of another driver is
// ignored, GPGPU_CACHE=off writes nothing, an invalid tuning is refused before anything is
// stored.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "cache_support.hpp"
#include "gpgpu/cache.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

using gpgpu::test::ScopedEnv;

struct TempCache : gpgpu::test::TempDir {
  TempCache() : gpgpu::test::TempDir("gpgpu-tuning-cache", true) {}
};

// A sort shape other than the device default: the ranked sort's 128 x 24 on GPUs, the
// serial sort's 16 x 2048 on CPU devices; Onesweep's 96 x 13.
gpgpu::PrimitiveTuning other_sort_shape(const gpgpu::Context& ctx) {
  gpgpu::PrimitiveTuning t;
  const bool serial = gpgpu::primitive_tuning(ctx).sort_serial == 1;
  t.sort_local = serial ? 16 : 128;
  t.sort_keys = serial ? 2048 : 24;
  t.onesweep_local = 96;
  t.onesweep_keys = 13;
  t.reduce_local = 128;
  return t;
}

}  // namespace

TEST(PrimitiveTuningCache, ALaterContextStartsFromTheStoredShapesAndSortsCorrectly) {
  SCOPED_TRACE("seed " + std::to_string(gpgpu::test::seed()));
  TempCache cache;
  gpgpu::Context first;
  const auto defaults = gpgpu::primitive_tuning(first);
  const auto wanted = other_sort_shape(first);
  ASSERT_NE(defaults.sort_keys, wanted.sort_keys);
  gpgpu::store_primitive_tuning(first, wanted);
  EXPECT_EQ(gpgpu::primitive_tuning(first).sort_keys, wanted.sort_keys);
  gpgpu::Context later;
  const auto t = gpgpu::primitive_tuning(later);
  EXPECT_EQ(t.sort_local, wanted.sort_local);
  EXPECT_EQ(t.sort_keys, wanted.sort_keys);
  EXPECT_EQ(t.onesweep_local, 96);
  EXPECT_EQ(t.onesweep_keys, 13);
  EXPECT_EQ(t.reduce_local, 128);
  EXPECT_EQ(t.scan_local, defaults.scan_local);  // fields left at 0 keep the default
  auto keys = gpgpu::test::random_uints(100000, 0, 0xFFFFFFFFu);
  auto expected = keys;
  std::sort(expected.begin(), expected.end());
  gpgpu::sort(later, std::span<std::uint32_t>(keys));
  EXPECT_EQ(keys, expected);
  // set_primitive_tuning still overrides what is stored (64: within every device's limits,
  // OpenGL ES 3.1's minimum of 128 invocations included).
  gpgpu::PrimitiveTuning explicit_shape;
  explicit_shape.reduce_local = 64;
  gpgpu::set_primitive_tuning(later, explicit_shape);
  EXPECT_EQ(gpgpu::primitive_tuning(later).reduce_local, 64);
}

TEST(PrimitiveTuningCache, AnEntryOfAnotherDriverIsIgnored) {
  TempCache cache;
  gpgpu::Context ctx;
  const auto defaults = gpgpu::primitive_tuning(ctx);
  // A work-group size within every device's limits and unlike this device's default (which a
  // profile such as es31-minimum may clamp to 128), so that taking the entry shows.
  const int stored = defaults.reduce_local == 64 ? 128 : 64;
  const std::string text = std::to_string(stored) + " 0 0 0 0 0 0 -1 -1 0 0";
  gpgpu::cache::Store("primitive-tuning", 2)
      .store("primitive tuning\n" + gpgpu::cache::device_key(ctx.info()) + "another driver\n",
             std::as_bytes(std::span(text.data(), text.size())));
  gpgpu::Context later;
  EXPECT_EQ(gpgpu::primitive_tuning(later).reduce_local, defaults.reduce_local);
  // The same text under this driver's key is taken (the key is the one that matters).
  gpgpu::cache::Store("primitive-tuning", 2)
      .store("primitive tuning\n" + gpgpu::cache::device_key(ctx.info()),
             std::as_bytes(std::span(text.data(), text.size())));
  gpgpu::Context third;
  EXPECT_EQ(gpgpu::primitive_tuning(third).reduce_local, stored);
}

TEST(PrimitiveTuningCache, TurnedOffNothingIsWritten) {
  TempCache cache;
  ScopedEnv off("GPGPU_CACHE", "off");
  gpgpu::Context ctx;
  const auto defaults = gpgpu::primitive_tuning(ctx);
  gpgpu::store_primitive_tuning(ctx, other_sort_shape(ctx));
  gpgpu::Context later;
  EXPECT_EQ(gpgpu::primitive_tuning(later).sort_keys, defaults.sort_keys);
  EXPECT_FALSE(fs::exists(cache.path()));
}

TEST(PrimitiveTuningCache, AnInvalidTuningIsRefusedAndNotStored) {
  TempCache cache;
  gpgpu::Context ctx;
  gpgpu::PrimitiveTuning bad;
  bad.reduce_local = 100;  // not a power of two
  EXPECT_THROW(gpgpu::store_primitive_tuning(ctx, bad), gpgpu::ArgumentError);
  EXPECT_FALSE(fs::exists(cache.path() / "primitive-tuning"));
}
