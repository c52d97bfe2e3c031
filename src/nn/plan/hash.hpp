// Internal: PCG's output permutation as a 32-bit hash, the one random source of dropout
// masks, augmentation and step seeds. The GLSL copy is glsl/snippets.hpp's hash_glsl; the
// two must stay the same function, since every backend draws the same masks.
#pragma once

#include <cstdint>

namespace gpgpu::nn::detail {

inline std::uint32_t pcg_hash(std::uint32_t v) {
  const std::uint32_t state = v * 747796405u + 2891336453u;
  const std::uint32_t word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return (word >> 22u) ^ word;
}

// Whether dropout keeps element i of a mask drawn from `seed` (its hash as a fraction of
// 2^24 at least `rate`).
inline bool dropout_keeps(std::uint32_t i, std::uint32_t seed, float rate) {
  return static_cast<float>(pcg_hash(i ^ pcg_hash(seed)) >> 8) * (1.0f / 16777216.0f) >= rate;
}

// The flip and shift that augmentation gives sample s in the epoch seeded `epoch_seed` (the
// GLSL copy is augmentation_glsl): output pixel (y, x) shows input pixel (y - dy, x' - dx)
// with x' = W - 1 - x when flipped, or 0 when that lies outside the image.
struct SampleShift {
  bool flip = false;
  int dx = 0, dy = 0;
};
inline SampleShift sample_shift(std::uint32_t epoch_seed, std::uint32_t s, bool flip, int shift) {
  SampleShift r;
  if (!flip && shift <= 0) return r;
  const std::uint32_t h = pcg_hash(epoch_seed ^ pcg_hash(s));
  r.flip = flip && (h & 1u) != 0u;
  if (shift > 0) {
    const auto span = static_cast<std::uint32_t>(2 * shift + 1);
    r.dx = static_cast<int>((h >> 8) % span) - shift;
    r.dy = static_cast<int>((h >> 20) % span) - shift;
  }
  return r;
}

}  // namespace gpgpu::nn::detail
