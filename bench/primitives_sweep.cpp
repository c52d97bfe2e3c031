// The tuning sweep of `gpgpu bench primitives --sweep`, and the helpers the runner shares.
#include <cmath>
#include <iostream>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "gpgpu/primitives.hpp"
#include "primitives_runner.hpp"

namespace gpgpu::bench {

namespace {
std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi) {
  std::vector<float> v(n);
  std::uint64_t state = seed;
  for (auto& x : v)
    x = lo + (hi - lo) * static_cast<float>(splitmix(state) >> 40) * (1.0f / 16777216.0f);
  return v;
}

std::vector<std::uint32_t> random_uints(std::size_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> v(n);
  std::uint64_t state = seed;
  for (auto& x : v) x = static_cast<std::uint32_t>(splitmix(state) >> 32);
  return v;
}

DeviceCopy::DeviceCopy(const Context& ctx)
    : vec4_(ctx, R"(
        layout(local_size_x = 256) in;
        layout(std430, binding = 0) readonly buffer A { uvec4 a[]; };
        layout(std430, binding = 1) writeonly buffer B { uvec4 b[]; };
        void main() { uint i = gpgpu_index(); if (i < gpgpu_count) b[i] = a[i]; })",
            {}, "bench copy vec4"),
      scalar_(ctx, R"(
        layout(local_size_x = 256) in;
        layout(std430, binding = 0) readonly buffer A { uint a[]; };
        layout(std430, binding = 1) writeonly buffer B { uint b[]; };
        void main() { uint i = gpgpu_index(); if (i < gpgpu_count) b[i] = a[i]; })",
              {}, "bench copy") {}

void DeviceCopy::run(const Buffer& from, Buffer& to) {
  if (from.size() % 4 == 0) {
    vec4_.run({{"a", from}, {"b", to}}, from.size() / 4);
  } else {
    scalar_.run({{"a", from}, {"b", to}}, from.size());
  }
}

namespace {

std::string describe(const PrimitiveTuning& t, const std::string& primitive) {
  if (primitive == "reduce") {
    return fmt::format("local {} unroll {} trips {}{}", t.reduce_local, t.reduce_unroll,
                       t.reduce_max_trips, t.texel_loads == 1 ? " texels" : "");
  }
  if (primitive == "scan") return fmt::format("local {} scalars {}", t.scan_local, t.scan_scalars);
  if (t.sort_onesweep == 1 && t.subgroups == 1) {
    return fmt::format("onesweep local {} keys {}", t.onesweep_local, t.onesweep_keys);
  }
  return fmt::format("{} local {} keys {}", t.sort_serial == 1 ? "serial" : "ranked", t.sort_local,
                     t.sort_keys);
}

struct Variant {
  std::string primitive;
  PrimitiveTuning tuning;
};

std::vector<Variant> variants(const Context& ctx) {
  std::vector<Variant> v;
  const auto add = [&](const std::string& p, auto set) {
    PrimitiveTuning t;
    set(t);
    try {
      set_primitive_tuning(ctx, t);  // validates (shared memory on this device)
      v.push_back({p, primitive_tuning(ctx)});
    } catch (const ArgumentError&) {
    }
  };
  add("reduce", [](PrimitiveTuning&) {});
  for (auto [l, u, trips] : {std::tuple{256, 8, 16},
                             {256, 4, 8},
                             {256, 4, 128},
                             {512, 4, 16},
                             {128, 8, 32},
                             {1024, 4, 8},
                             {256, 2, 64},
                             {256, 8, 64}}) {
    add("reduce", [=](PrimitiveTuning& t) {
      t.reduce_local = l, t.reduce_unroll = u, t.reduce_max_trips = trips;
    });
  }
  add("reduce", [](PrimitiveTuning& t) { t.texel_loads = 1; });
  add("scan", [](PrimitiveTuning&) {});
  for (auto [l, s] :
       {std::pair{256, 8}, {256, 24}, {256, 32}, {128, 32}, {512, 16}, {512, 8}, {1024, 8}}) {
    add("scan", [=](PrimitiveTuning& t) { t.scan_local = l, t.scan_scalars = s; });
  }
  add("sort", [](PrimitiveTuning&) {});
  for (auto [l, k] : {std::pair{128, 16}, {512, 16}, {256, 24}, {128, 32}, {256, 32}, {64, 32}}) {
    add("sort", [=](PrimitiveTuning& t) { t.sort_serial = 0, t.sort_local = l, t.sort_keys = k; });
  }
  // Onesweep runs on the subgroup kernels only; elsewhere the row says "ranked".
  for (auto [l, k] : {std::pair{512, 11}, {256, 15}, {256, 16}, {512, 16}, {256, 32}}) {
    add("sort", [=](PrimitiveTuning& t) {
      t.sort_serial = 0, t.sort_onesweep = 1, t.onesweep_local = l, t.onesweep_keys = k;
    });
  }
  return v;
}

// Keeps the fastest correct shapes of each primitive in the disk cache for this device
// (store_primitive_tuning), so that later processes use them.
void store_fastest(const Context& ctx,
                   const std::map<std::string, std::pair<double, PrimitiveTuning>>& fastest) {
  PrimitiveTuning t;
  for (const auto& [primitive, best] : fastest) {
    const PrimitiveTuning& b = best.second;
    if (best.first <= 0) continue;
    if (primitive == "reduce") {
      t.reduce_local = b.reduce_local, t.reduce_unroll = b.reduce_unroll;
      t.reduce_max_trips = b.reduce_max_trips, t.texel_loads = b.texel_loads;
    } else if (primitive == "scan") {
      t.scan_local = b.scan_local, t.scan_scalars = b.scan_scalars;
    } else {
      t.sort_serial = b.sort_serial, t.sort_local = b.sort_local, t.sort_keys = b.sort_keys;
      t.onesweep_local = b.onesweep_local, t.onesweep_keys = b.onesweep_keys;
    }
  }
  if (fastest.empty()) return;
  store_primitive_tuning(ctx, t);
  std::cerr << "  sweep: the fastest shapes are kept for this device (store_primitive_tuning): "
            << describe(t, "reduce") << "; " << describe(t, "scan") << "; " << describe(t, "sort")
            << "\n";
}

}  // namespace

void run_tuning_sweep(const Context& ctx, primitives_detail::Report& report, int warmup,
                      int repeats) {
  const PrimitiveTuning saved = primitive_tuning(ctx);
  const auto largest = static_cast<std::size_t>(ctx.info().max_shader_storage_block_size) / 4;
  const auto all = variants(ctx);
  std::map<std::string, std::pair<double, PrimitiveTuning>> fastest;  // at the largest size
  for (int l : {26, 28}) {
    const std::size_t n = std::size_t{1} << l;
    if (n > largest) continue;
    const auto x = random_floats(n, 99, -1.0f, 1.0f);
    double exact = 0, magnitude = 0;
    for (float v : x) exact += v, magnitude += std::fabs(v);
    const auto keys = random_uints(n, 98);
    auto sorted = keys;
    cpu::sort(sorted);
    const Buffer fin = Buffer::from(ctx, x), kin = Buffer::from(ctx, keys);
    Buffer fout(ctx, ElementType::Float32, n), kout(ctx, ElementType::Uint32, n);
    DeviceCopy copy(ctx);
    std::vector<float> scanned(n);
    std::vector<std::uint32_t> got(n);
    fastest.clear();
    for (const auto& v : all) {
      set_primitive_tuning(ctx, v.tuning);
      primitives_detail::Row row{v.primitive, describe(v.tuning, v.primitive), "gpgpu", n};
      row.bytes = primitives_detail::bytes_per_element(v.primitive) * static_cast<double>(n);
      try {
        const Budget few{warmup, repeats};
        checks::Check c;
        Measured m;
        if (v.primitive == "reduce") {
          m = time_gpgpu(ctx, few, [&] { reduce(ctx, fin, fout); });
          c = checks::reduce(fout.to_vector<float>()[0], exact, magnitude,
                             reduce_error_depth(ctx, n));
        } else if (v.primitive == "scan") {
          m = time_gpgpu(ctx, few, [&] { inclusive_scan(ctx, fin, fout); });
          fout.download(std::span<float>(scanned));
          c = checks::scan(scanned, x, scan_error_depth(ctx, n));
        } else {
          m = time_gpgpu(
              ctx, few, [&] { sort(ctx, kout); }, [&] { copy.run(kin, kout); });
          kout.download(std::span<std::uint32_t>(got));
          c = checks::same(got, sorted, "keys");
        }
        row.ms = m.ms;
        row.gbps = gbps(row.bytes, m.ms);
        row.status = c.ok ? "ok" : "WRONG";
        auto& best = fastest[v.primitive];
        if (c.ok && m.ms > 0 && (best.first <= 0 || m.ms < best.first)) best = {m.ms, v.tuning};
        row.note = c.note;
      } catch (const std::exception& e) {
        row.status = "error";
        row.note = e.what();
      }
      std::cerr << fmt::format("  sweep {} 2^{} {}: {:.4f} ms {}\n", row.primitive, l,
                               row.contender, row.ms, row.status);
      report.sweep.push_back(row);
    }
  }
  set_primitive_tuning(ctx, saved);
  store_fastest(ctx, fastest);
}

}  // namespace gpgpu::bench
