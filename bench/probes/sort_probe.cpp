// A research probe, not part of the library (docs/primitives-internals.md cites it):
//   sort_probe LOG2N ONESWEEP LOCAL KEYS [PAIRS]  GPU time of sorting 2^LOG2N random uint32
//                                                 keys (median of 10 after 3) with a tuning
//                                                 (LOCAL x KEYS: Onesweep's tile if ONESWEEP
//                                                 is 1, else the ranked sort's; 0 = default)
//   sort_probe occ SHARED_WORDS [LOCAL [REGS]]    the most work groups resident at once for
//                                                 a kernel with that much shared memory
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "gpgpu/gpgpu.hpp"

// Most work groups resident at once, device-wide, for a kernel of LOCAL invocations with
// SHW words of shared memory: each group counts itself in, spins a few microseconds, counts out.
static int occupancy(int shw, int local, int regs) {
  using namespace gpgpu;
  Context ctx;
  std::string src = "#define SHW " + std::to_string(shw) + "u\n#define LOC " +
                    std::to_string(local) + "\n#define REGS " + std::to_string(regs) + R"(
layout(local_size_x = LOC) in;
layout(std430, binding = 0) coherent buffer C { uint c[]; };
shared uint pad[SHW];
void main() {
  uint lid = gl_LocalInvocationID.x;
  for (uint i = lid; i < SHW; i += uint(LOC)) pad[i] = i ^ gl_WorkGroupID.x;
  barrier();
  if (lid == 0u) { uint a = atomicAdd(c[0], 1u) + 1u; atomicMax(c[1], a); }
  uint x = pad[(lid * 7u) % SHW];
#if REGS > 0
  uint r[REGS];
  for (int k = 0; k < REGS; ++k) r[k] = x + uint(k) * 3u;
#endif
  for (uint i = 0u; i < 4000u; ++i) {
    x = x * 1664525u + 1013904223u;
#if REGS > 0
    r[i % uint(REGS)] ^= x;
#endif
  }
#if REGS > 0
  for (int k = 0; k < REGS; ++k) x += r[k];
#endif
  barrier();
  if (lid == 0u) atomicAdd(c[0], 0xffffffffu);
  if (x == 12345u) c[2] = x;
})";
  ComputeKernel k(ctx, src, {}, "occupancy");
  Buffer c = Buffer::from(ctx, std::vector<std::uint32_t>(4, 0));
  const int units = std::max(1, ctx.info().compute_units);
  k.run({{"c", c}}, {static_cast<std::size_t>(units) * 64 * static_cast<std::size_t>(local), 1, 1});
  const auto got = c.to_vector<std::uint32_t>();
  std::printf(
      "occupancy: shared %d words (%d B) local %d regs %d: at most %u groups at once "
      "(%.2f per each of %d compute units)\n",
      shw, shw * 4, local, regs, got[1], got[1] / static_cast<double>(units), units);
  return 0;
}

int main(int argc, char** argv) {
  using namespace gpgpu;
  const auto arg = [&](int i, int otherwise) { return argc > i ? std::atoi(argv[i]) : otherwise; };
  if (argc > 1 && std::string(argv[1]) == "occ") {
    if (arg(2, 0) <= 0 || arg(3, 256) <= 0) {
      std::fprintf(stderr, "usage: sort_probe occ SHARED_WORDS [LOCAL [REGS]], both above 0\n");
      return 2;
    }
    return occupancy(arg(2, 0), arg(3, 256), arg(4, 0));
  }
  const int lg = arg(1, 24), os = arg(2, 0), local = arg(3, 0), keys_per = arg(4, 0);
  const bool pairs = arg(5, 0) != 0;
  const std::size_t n = std::size_t{1} << lg;
  Context ctx;
  PrimitiveTuning t{};
  t.sort_onesweep = os;
  if (local > 0) t.sort_serial = 0;  // a shape names the ranked forms (llvmpipe defaults to serial)
  t.subgroups = 1;
  (os == 1 ? t.onesweep_local : t.sort_local) = local;
  (os == 1 ? t.onesweep_keys : t.sort_keys) = keys_per;
  set_primitive_tuning(ctx, t);
  std::vector<std::uint32_t> host(n);
  std::generate(host.begin(), host.end(), std::mt19937(42));
  Buffer src = Buffer::from(ctx, host), keys(ctx, ElementType::Uint32, n),
         vals(ctx, ElementType::Uint32, n);
  Profiler prof(ctx);
  for (int i = 0; i < 13; ++i) {
    keys.copy_from(src, 0, 0, n);
    ctx.finish();
    auto s = prof.scope(i < 3 ? "warm" : "sort");
    pairs ? sort_by_key(ctx, keys, vals) : sort(ctx, keys);
  }
  std::sort(host.begin(), host.end());
  const bool ok = keys.to_vector<std::uint32_t>() == host;
  const auto st = prof.stats("sort");
  std::printf("n=2^%d onesweep=%d local=%d keys=%d pairs=%d: gpu median %.4f ms (min %.4f) %s\n",
              lg, os, local, keys_per, pairs, st.gpu_median_ms, st.gpu_min_ms, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
