// reduction_sum — the sum of 2^23 floats by a tree reduction in shared memory.
//
// Each work group of 128 invocations sums 256 consecutive values: every invocation loads two
// and adds them, then the group halves its partial sums in shared memory until one is left,
// which it writes out. One pass turns n values into n / 256 partial sums; passes repeat until
// one value remains (2^23 -> 32768 -> 128 -> 1; at most 65535 groups a pass, the
// dispatch size OpenGL ES 3.1 guarantees). The data and the partial sums stay on the
// GPU in gpgpu::Buffers between passes; only the final float is read back.
//
// Accuracy: a tree adds every value through at most `levels` additions (here 8 per pass:
// the pairwise load and 7 halvings of 128), each rounding with relative error at most
// u = 2^-24, so |sum - exact| <= gamma(levels) * sum |x_i| with gamma(k) = k u / (1 - k u)
// (Higham, Accuracy and Stability of Numerical Algorithms, section 4.2). A serial float32
// loop would instead have n - 1 = 8.4 million levels.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include <gpgpu/gpgpu.hpp>

namespace {

constexpr std::uint32_t kGroupSize = 128;  // OpenGL ES 3.1 guarantees 128 invocations
constexpr std::uint32_t kValuesPerGroup = 2 * kGroupSize;
constexpr int kLevelsPerPass = 8;  // 1 pairwise add on load + log2(128) halvings

constexpr const char* kReduceSource = R"(
  layout(local_size_x = 128) in;
  layout(std430, binding = 0) readonly buffer Input { float values[]; };
  layout(std430, binding = 1) writeonly buffer Output { float partial_sums[]; };
  uniform uint n;  // how many values this pass sums (values[] may be longer)
  shared float scratch[128];

  void main() {
    uint local = gl_LocalInvocationID.x;
    uint first = gl_WorkGroupID.x * 256u + local;
    // Past the end, add zeros: exact, so they do not change the result or the error bound.
    float a = first < n ? values[first] : 0.0;
    float b = first + 128u < n ? values[first + 128u] : 0.0;
    scratch[local] = a + b;
    memoryBarrierShared();
    barrier();
    for (uint half_size = 64u; half_size > 0u; half_size >>= 1) {
      if (local < half_size) scratch[local] += scratch[local + half_size];
      memoryBarrierShared();
      barrier();  // every invocation of the group reaches it, also those with nothing to add
    }
    if (local == 0u) partial_sums[gl_WorkGroupID.x] = scratch[0];
  })";

}  // namespace

int main() {
  try {
    gpgpu::Context ctx;
    std::printf("device: %s\n", ctx.info().renderer.c_str());
    gpgpu::ComputeKernel reduce(ctx, kReduceSource);

    const std::size_t n = std::size_t{1} << 23;
    const auto seed = std::random_device{}();
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> values(n);
    for (auto& v : values) v = dist(rng);

    // Upload once; every pass reads one Buffer and writes the next.
    gpgpu::Buffer current = gpgpu::Buffer::from(ctx, values);
    std::size_t remaining = n;
    int passes = 0;
    while (remaining > 1) {
      const std::size_t groups = (remaining + kValuesPerGroup - 1) / kValuesPerGroup;
      gpgpu::Buffer partial_sums(ctx, gpgpu::ElementType::Float32, groups);
      reduce.run_groups({{"values", current},
                         {"partial_sums", partial_sums},
                         {"n", static_cast<std::uint32_t>(remaining)}},
                        {groups, 1, 1});
      current = std::move(partial_sums);  // the previous level is freed here
      remaining = groups;
      ++passes;
    }
    float gpu_sum = 0;
    current.download(std::span<float>(&gpu_sum, 1));

    // The reference: a double sum of floats in [0, 1) loses at most n * 2^-53 relative, far
    // below float32's resolution.
    double exact = 0, magnitude = 0;
    for (float v : values) {
      exact += v;
      magnitude += std::abs(v);
    }
    const int levels = passes * kLevelsPerPass;
    const double u = std::ldexp(1.0, -24);
    const double bound = levels * u / (1 - levels * u) * magnitude;
    const double error = std::abs(gpu_sum - exact);

    std::printf("sum of %zu floats in [0, 1) (seed %u), %d passes of 128-wide groups\n", n, seed,
                passes);
    std::printf("  GPU (float32 tree):     %.1f\n", static_cast<double>(gpu_sum));
    std::printf("  reference (float64):    %.4f\n", exact);
    std::printf("  |error|:                %.4f  (%.3g relative)\n", error, error / exact);
    std::printf("  bound gamma(%d)*sum|x|: %.4f\n", levels, bound);
    if (!(error <= bound)) {
      std::fprintf(stderr, "FAILED: the error exceeds the bound\n");
      return 1;
    }
    std::printf("OK: within the bound\n");
    return 0;
  } catch (const gpgpu::Error& e) {
    std::fprintf(stderr, "gpgpu error: %s\n", e.what());
    return 1;
  }
}
