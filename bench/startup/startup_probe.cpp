// The child side of `gpgpu bench startup`: one case timed inside this process, the first time
// and then in the steady state (median of five more after it), printed as one JSON line.
#include <algorithm>
#include <functional>
#include <iostream>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/nn.hpp"
#include "gpgpu/npy.hpp"
#include "gpgpu/primitives.hpp"
#include "harness.hpp"
#include "startup_bench.hpp"

namespace gpgpu::bench {

namespace {

using nlohmann::json;

// The first run of `work`, then the median of five more, in seconds.
json first_and_steady(const std::function<void()>& work) {
  const double first = median_ms({0, 1}, work) / 1e3;
  return {{"first_seconds", first}, {"steady_seconds", median_ms({0, 5}, work) / 1e3}};
}

// A Context, then the SAXPY kernel built and run on host arrays of 2^20 floats; the steady
// state is the run alone. alpha = 2, x = 1, y = 1 + i % 7 are exact in float32, so y grows by
// exactly 2 per run: checked at the end.
json time_first_kernel() {
  std::optional<Context> ctx;
  std::optional<ComputeKernel> kernel;
  const std::size_t n = std::size_t{1} << 20;
  std::vector<float> x(n, 1.0f), y(n);
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<float>(1 + i % 7);
  const auto t = first_and_steady([&] {
    if (!ctx) ctx.emplace();
    if (!kernel) kernel.emplace(*ctx, saxpy_source, Defines{}, "startup saxpy");
    kernel->run({{"x", x}, {"y", y}, {"alpha", 2.0f}});
  });
  for (std::size_t i = 0; i < n; ++i) {
    if (y[i] != static_cast<float>(1 + i % 7 + 12)) throw Error("startup probe: wrong SAXPY");
  }
  return t;
}

// Seconds between named points of a probe, as JSON.
struct Laps {
  json phases;
  Clock::time_point start = Clock::now();
  void operator()(const char* name) {
    phases[name] = ms_since(start) / 1e3;
    start = Clock::now();
  }
};

// The first kernel's time split into its steps (a Context; the kernel built, from the disk
// cache when warm; its first run with 2^20-float host arrays; a second run), for finding
// where a warm process's time goes.
json kernel_phases() {
  Laps lap;
  Context ctx;
  lap("context");
  std::optional<ComputeKernel> kernel;
  kernel.emplace(ctx, saxpy_source, Defines{}, "startup saxpy");
  lap("kernel built");
  const std::size_t n = std::size_t{1} << 20;
  std::vector<float> x(n, 1.0f), y(n, 1.0f);
  lap("host arrays");
  kernel->run({{"x", x}, {"y", y}, {"alpha", 2.0f}});
  lap("first run");
  kernel->run({{"x", x}, {"y", y}, {"alpha", 2.0f}});
  lap("second run");
  if (y[n - 1] != 5.0f) throw Error("startup probe: wrong SAXPY");
  kernel.reset();
  ctx.release();
  lap("context released");
  return lap.phases;
}

json heavy_kernels() {
  constexpr const char* tiled = R"(
#pragma optionNV(unroll all)
layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) readonly buffer A { vec4 a[]; };
layout(std430, binding = 1) writeonly buffer C { vec4 c[]; };
shared vec4 tile[16][17];
void main() {
  ivec2 g = ivec2(gl_GlobalInvocationID.xy), l = ivec2(gl_LocalInvocationID.xy);
  vec4 acc[8];
  for (int i = 0; i < 8; ++i) acc[i] = vec4(float(VARIANT));
  for (int k0 = 0; k0 < 64; k0 += 16) {
    tile[l.y][l.x] = a[(g.y * 64 + k0 + l.x) % a.length()];
    barrier();
    for (int k = 0; k < 16; ++k) {
      for (int i = 0; i < 8; ++i) acc[i] = fma(tile[k][(l.x + i) % 16], tile[l.y][k], acc[i]);
    }
    barrier();
  }
  vec4 sum = vec4(0.0);
  for (int i = 0; i < 8; ++i) sum += acc[i];
  c[g.y * 64 + g.x] = sum;
})";
  Laps lap;
  const Context ctx;
  lap("context");
  std::vector<ComputeKernel> kernels;
  for (int v = 0; v < 12; ++v) {
    kernels.emplace_back(ctx, tiled, Defines{{"VARIANT", std::to_string(v)}}, "heavy kernel");
  }
  lap("12 kernels built");
  const Buffer a(ctx, ElementType::Float32, 4 * 64 * 64), c(ctx, ElementType::Float32, 4 * 64 * 64);
  for (int round = 0; round < 2; ++round) {
    for (auto& k : kernels) k.run({{"a", a}, {"c", c}}, Size3{64, 64, 1});
    ctx.finish();
    lap(round == 0 ? "first runs" : "second runs");
  }
  lap.phases["compiled"] = ctx.program_counts().compiled;
  lap.phases["restored"] = ctx.program_counts().restored;
  return lap.phases;
}

// Sorting the keys of a .npy file (uint32), from and to host memory, as `gpgpu sort` does.
json time_sort(const std::string& file) {
  const Context ctx;
  const auto array = npy::load(file);
  const auto keys = array.view<std::uint32_t>();
  std::vector<std::uint32_t> work;
  const auto t = first_and_steady([&] {
    work.assign(keys.begin(), keys.end());
    sort(ctx, std::span<std::uint32_t>(work));
  });
  if (!std::is_sorted(work.begin(), work.end())) throw Error("startup probe: not sorted");
  return t;
}

// Classifying the first test image with a saved model, as `gpgpu predict --limit 1` does.
json time_predict(const std::string& model_dir, const std::filesystem::path& data) {
  const Context ctx;
  auto model = nn::load_model(ctx, model_dir);
  model.set_backend(model.backend(), {.autotune = false});  // as `gpgpu predict` does
  const auto test =
      nn::load_idx_dataset(data.empty() ? nn::default_data_dir() : data, "t10k").first(1);
  const nn::DeviceDataset device_test(ctx, test);
  return first_and_steady([&] { nn::evaluate(model, device_test, 1); });
}

}  // namespace

int run_startup_probe(const std::string& what, const std::string& file,
                      const std::filesystem::path& data) {
  json out;
  if (what == "kernel-phases" || what == "heavy-kernels") {
    out["phases"] = what == "kernel-phases" ? kernel_phases() : heavy_kernels();
  } else if (what == "context") {
    std::vector<Context> keep;  // the first Context and later ones in this process
    out = first_and_steady([&] { keep.emplace_back(); });
  } else if (what == "kernel") {
    out = time_first_kernel();
  } else if (what == "sort") {
    out = time_sort(file);
  } else if (what == "predict") {
    out = time_predict(file, data);
  } else {
    throw ArgumentError(
        "startup-probe: expected context, kernel, sort FILE or predict MODEL; got " + what);
  }
  out["probe"] = what;
  std::cout << out.dump() << "\n";
  return 0;
}

}  // namespace gpgpu::bench
