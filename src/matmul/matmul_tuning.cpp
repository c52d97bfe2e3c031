// MatmulTuning: device defaults, validation against the device's limits, and its name.
#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "gpgpu/matmul.hpp"
#include "matmul/matmul_backend.hpp"

namespace gpgpu {

std::string MatmulTuning::to_string() const {
  return fmt::format("{}x{}x{} {}x{}{}{}{}", block_m, block_n, block_k, thread_m, thread_n,
                     shared_memory ? "" : " direct", b_texture ? " btex" : "",
                     split_k > 1 ? fmt::format(" split-K {}", split_k) : "");
}

MatmulTuning MatmulTuning::for_device(const DeviceInfo& device) {
  // The first candidate that fits the device: on llvmpipe 8 x 256 blocks of 8 x 16 outputs
  // with B from a texture, on GPUs 128 x 128 blocks of 8 x 8 (256 invocations, 17 KB of
  // shared memory), smaller ones where the device's work groups or shared memory are
  // (matmul_tuning_candidates gives the order and the reasons).
  const auto candidates = matmul_tuning_candidates(device);
  if (!candidates.empty()) return candidates.front();
  MatmulTuning t;  // 32 x 32 blocks of 4 x 4: 64 invocations, 5 KB, within OpenGL ES 3.1's minimums
  t.block_m = t.block_n = 32;
  t.thread_m = t.thread_n = 4;
  t.tile = detail::default_tile(device);
  return t;
}

MatmulTuning MatmulTuning::for_shape(const DeviceInfo& device, int m, int k, int n) {
  MatmulTuning t = for_device(device);
  t.split_k = detail::auto_split_k(t, device, m, k, n);
  return t;
}

namespace detail {

int default_tile(const DeviceInfo& device) {
  // 16 x 16 invocations (256) where the device allows; else the largest power of two whose
  // square fits its work groups and whose two tiles fit its shared memory.
  const std::int64_t threads =
      std::min(device.max_compute_work_group_invocations, device.max_compute_work_group_size[0]);
  int tile = 16;
  while (tile > 1 &&
         (std::int64_t{tile} * tile > threads || tile > device.max_compute_work_group_size[1] ||
          8 * std::int64_t{tile} * tile > device.max_compute_shared_memory_size)) {
    tile /= 2;
  }
  return tile;
}

int group_rows_of_16(const DeviceInfo& device) {
  const bool fits = device.max_compute_work_group_invocations >= 256 &&
                    device.max_compute_work_group_size[1] >= 16;
  return fits ? 16 : 8;
}

int auto_split_k(const MatmulTuning& t, const DeviceInfo& device, int m, int k, int n) {
  const int units = device.compute_units;
  if (!t.shared_memory || device.is_software || units <= 0 || m <= 0 || n <= 0 || k <= 0) {
    return 1;
  }
  // 128x128 tiles of 8x8 per invocation are the fastest per multiply-add (docs/matmul.md),
  // and two of their work groups fit a multiprocessor. When C has fewer tiles than the
  // device has multiprocessors, most would idle: split k instead, so that about one group
  // per multiprocessor runs, each over at least 16 slices of k (the summing pass reads
  // every partial product once more, which pays only while the split stays small).
  const long long tiles =
      static_cast<long long>((m + t.block_m - 1) / t.block_m) * ((n + t.block_n - 1) / t.block_n);
  if (tiles >= units) return 1;
  const int max_split = std::max(1, k / (16 * t.block_k));
  int split = 1;
  while (split < 8 && split * 2 <= max_split && tiles * split < units) split *= 2;
  return split;
}

}  // namespace detail

namespace {

// Shared memory the register-blocked kernel declares: two slices of A (transposed, one vec4
// of padding per row) and two of B.
std::int64_t register_blocked_shared_bytes(const MatmulTuning& t) {
  const std::int64_t a = static_cast<std::int64_t>(t.block_k) * (t.block_m / 4 + 1);
  const std::int64_t b = static_cast<std::int64_t>(t.block_k) * (t.block_n / 4);
  return 2 * (a + b) * 16;
}

}  // namespace

void validate_matmul_tuning(const MatmulTuning& t, const DeviceInfo& device) {
  const auto fail = [&](const std::string& why) {
    throw ArgumentError(fmt::format("MatmulTuning {} (tile {}): {}", t.to_string(), t.tile, why));
  };
  const auto vec4_groups = [](int x) { return x == 4 || x == 8 || x == 16; };
  if (!vec4_groups(t.thread_m)) fail("thread_m must be 4, 8 or 16");
  if (!vec4_groups(t.thread_n)) fail("thread_n must be 4, 8 or 16");
  if (t.shared_memory && t.b_texture) fail("b_texture needs shared_memory off");
  if (t.split_k < 1 || t.split_k > 64) fail("split_k must be 1 to 64");
  if (t.split_k > 1 && !t.shared_memory) fail("split_k needs shared_memory on");
  if (t.block_m <= 0 || t.block_m % t.thread_m != 0) {
    fail(fmt::format("block_m ({}) must be a positive multiple of thread_m ({})", t.block_m,
                     t.thread_m));
  }
  if (t.block_n <= 0 || t.block_n % t.thread_n != 0) {
    fail(fmt::format("block_n ({}) must be a positive multiple of thread_n ({})", t.block_n,
                     t.thread_n));
  }
  if (t.block_k <= 0 || t.block_k % 4 != 0) {
    fail(fmt::format("block_k ({}) must be a positive multiple of 4", t.block_k));
  }
  const std::int64_t threads = t.threads();
  const std::int64_t max_threads =
      std::min(device.max_compute_work_group_invocations, device.max_compute_work_group_size[0]);
  if (threads > max_threads) {
    fail(
        fmt::format("(block_m/thread_m)*(block_n/thread_n) = {} invocations per work group; the "
                    "device allows {}",
                    threads, max_threads));
  }
  const std::int64_t shared = t.shared_memory ? register_blocked_shared_bytes(t) : 0;
  if (shared > device.max_compute_shared_memory_size) {
    fail(fmt::format("needs {} bytes of shared memory; the device has {}", shared,
                     device.max_compute_shared_memory_size));
  }
  if (t.tile == 0) return;  // the device's default tile, which fits by construction
  if (t.tile < 0 || static_cast<std::int64_t>(t.tile) * t.tile > max_threads ||
      t.tile > device.max_compute_work_group_size[1]) {
    fail(fmt::format("tile ({}) needs tile*tile invocations per work group; the device allows {}",
                     t.tile, max_threads));
  }
  if (2 * static_cast<std::int64_t>(t.tile) * t.tile * 4 > device.max_compute_shared_memory_size) {
    fail(fmt::format("tile ({}) needs {} bytes of shared memory; the device has {}", t.tile,
                     2 * t.tile * t.tile * 4, device.max_compute_shared_memory_size));
  }
}

}  // namespace gpgpu
