// ceiling: what each programmable stage of this device can do — ALU-bound arithmetic and
// texel fetches in a compute shader, a vertex shader (transform feedback) and a fragment
// shader — and the fragment and transform-feedback matmuls as fractions of their stage's
// ceilings. On the H100 the vertex and fragment stages run on few graphics-capable
// multiprocessors: their ALU ceiling is about 1/32 of the compute stage's.
#include <fmt/format.h>

#include "datapath_env.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/fragment_kernel.hpp"
#include "gpgpu/matmul.hpp"
#include "gpgpu/texture.hpp"
#include "gpgpu/transform_feedback_kernel.hpp"

namespace gpgpu::bench::datapath {

namespace {

// 8 independent vec4 FMA chains: 32 FMAs (64 FLOP) per round, no memory traffic.
constexpr const char* alu_body = R"(
vec4 alu(float seed) {
  vec4 a0 = vec4(seed), a1 = a0 + 1.0, a2 = a0 + 2.0, a3 = a0 + 3.0;
  vec4 a4 = a0 + 4.0, a5 = a0 + 5.0, a6 = a0 + 6.0, a7 = a0 + 7.0;
  const vec4 m = vec4(0.9999), c = vec4(0.0001);
  for (int r = 0; r < rounds; ++r) {
    a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c);
    a4 = fma(a4, m, c); a5 = fma(a5, m, c); a6 = fma(a6, m, c); a7 = fma(a7, m, c);
  }
  return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
)";

// `fetches` texels per invocation from an RGBA32F texture of power-of-two sides: invocation i
// walks its row from column i, so neighbouring invocations read neighbouring texels and each
// walks along a row, as the texture matmuls walk along k (the texture cache's good case).
constexpr const char* fetch_body = R"(
vec4 fetch(int i) {
  ivec2 size = textureSize(texels, 0);
  int x = i & (size.x - 1);
  int y = (i / size.x) & (size.y - 1);
  vec4 sum = vec4(0.0);
  for (int j = 0; j < fetches; ++j) sum += texelFetch(texels, ivec2((x + j) & (size.x - 1), y), 0);
  return sum;
}
)";

std::string compute_source(const char* body, const char* call, bool fetch) {
  return fmt::format(R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) writeonly buffer Out {{ vec4 o[]; }};
uniform int rounds;
uniform int fetches;
{}
{}
void main() {{
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  o[i] = {};
}})",
                     fetch ? "uniform highp sampler2D texels;" : "", body, call);
}

std::string fragment_source(const char* body, const char* call, bool fetch) {
  return fmt::format(R"(
uniform int rounds;
uniform int fetches;
{}
out vec4 result;
{}
void main() {{ int i = gpgpu_index(); result = {}; }})",
                     fetch ? "uniform highp sampler2D texels;" : "", body, call);
}

std::string vertex_source(const char* body, const char* call, bool fetch) {
  return fmt::format(R"(
uniform int rounds;
uniform int fetches;
{}
out vec4 result;
{}
void main() {{ int i = gpgpu_index(); result = {}; }})",
                     fetch ? "uniform highp sampler2D texels;" : "", body, call);
}

struct StageRates {
  double alu_gflops = -1;
  double fetches_per_s = -1;
};

template <class Kernel, class Run>
double timed_ms(Env& env, Kernel& kernel, Run&& run) {
  const bool gpu_clock = !env.software() && env.context.info().has_timer_query();
  kernel.set_timing(gpu_clock);
  std::vector<double> ms;
  for (int i = 0; i < env.warmup + env.repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    env.context.finish();
    const double wall =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (i >= env.warmup)
      ms.push_back(gpu_clock && kernel.last_gpu_ns() > 0 ? kernel.last_gpu_ns() * 1e-6 : wall);
  }
  return median(ms);
}

}  // namespace

void run_ceiling(Env& env, bool quick) {
  auto& ctx = env.context;
  const bool sw = env.software();
  // Work sizes: enough that launch overhead is negligible on a GPU, seconds at most on a CPU.
  const std::size_t side = quick || sw ? 256 : 4096;  // fragment grid and vertex count side^2
  const std::size_t items = side * side;
  // A CPU device needs long loops too, or the dispatch dominates (but fewer invocations).
  const int rounds = quick ? 16 : sw ? 512 : 1024;
  const int fetches = quick ? 16 : 256;
  const double alu_flop = static_cast<double>(items) * rounds * 64;
  const double fetch_count = static_cast<double>(items) * fetches;
  const std::size_t tex_side = quick || sw ? 256 : 2048;
  std::vector<float> texel_values(tex_side * tex_side * 4);
  for (std::size_t i = 0; i < texel_values.size(); ++i)
    texel_values[i] = static_cast<float>(i % 17);
  const auto texels = Texture::from(ctx, TexelType::Vec4, {tex_side, tex_side}, texel_values);
  const Args alu_args{{"rounds", std::int32_t{rounds}}};
  const Args fetch_args{{"fetches", std::int32_t{fetches}}, {"texels", texels}};
  auto with = [](Args args, const char* name, const auto& target) {
    args.emplace_back(name, target);
    return args;
  };

  StageRates compute, vertex, fragment;
  {
    Buffer out(ctx, ElementType::Float32, items * 4);
    ComputeKernel alu(ctx, compute_source(alu_body, "alu(float(i))", false), {},
                      "ceiling compute alu");
    compute.alu_gflops =
        alu_flop / (timed_ms(env, alu, [&] { alu.run(with(alu_args, "o", out), items); }) * 1e6);
    ComputeKernel fetch(ctx, compute_source(fetch_body, "fetch(int(i))", true), {},
                        "ceiling compute fetch");
    compute.fetches_per_s =
        fetch_count /
        (timed_ms(env, fetch, [&] { fetch.run(with(fetch_args, "o", out), items); }) * 1e-3);
  }
  {
    Buffer out(ctx, ElementType::Float32, items * 4);
    TransformFeedbackKernel alu(ctx, vertex_source(alu_body, "alu(float(i))", false), {},
                                "ceiling vertex alu");
    vertex.alu_gflops =
        alu_flop / (timed_ms(env, alu, [&] { alu.run(with(alu_args, "result", out)); }) * 1e6);
    TransformFeedbackKernel fetch(ctx, vertex_source(fetch_body, "fetch(i)", true), {},
                                  "ceiling vertex fetch");
    vertex.fetches_per_s =
        fetch_count /
        (timed_ms(env, fetch, [&] { fetch.run(with(fetch_args, "result", out)); }) * 1e-3);
  }
  if (ctx.info().has_color_buffer_float()) {
    Texture out(ctx, TexelType::Vec4, {side, side});
    FragmentKernel alu(ctx, fragment_source(alu_body, "alu(float(i))", false), {},
                       "ceiling fragment alu");
    fragment.alu_gflops =
        alu_flop / (timed_ms(env, alu, [&] { alu.run(with(alu_args, "result", out)); }) * 1e6);
    FragmentKernel fetch(ctx, fragment_source(fetch_body, "fetch(i)", true), {},
                         "ceiling fragment fetch");
    fragment.fetches_per_s =
        fetch_count /
        (timed_ms(env, fetch, [&] { fetch.run(with(fetch_args, "result", out)); }) * 1e-3);
  }

  ResultTable stages("ceiling", "per-stage ceilings: ALU-bound FMA chains and texel fetches",
                     {"stage", "ALU GFLOPS", "vs compute", "G texel fetches/s", "vs compute"});
  auto add = [&](const char* name, const StageRates& r) {
    stages.add({name,
                r.alu_gflops > 0 ? Cell(r.alu_gflops, r.alu_gflops < 100 ? 1 : 0) : Cell::missing(),
                ratio(r.alu_gflops, compute.alu_gflops),
                r.fetches_per_s > 0 ? Cell(r.fetches_per_s * 1e-9, 3) : Cell::missing(),
                ratio(r.fetches_per_s, compute.fetches_per_s)});
  };
  add("compute shader", compute);
  add("vertex shader + transform feedback", vertex);
  add("fragment shader into RGBA32F", fragment);
  stages.note(fmt::format(
      "{} invocations x {} rounds of 32 vec4-lane FMAs; {} RGBA32F fetches "
      "each from a {}^2 texture; {}",
      items, rounds, fetches, tex_side,
      sw ? "fenced wall clock (llvmpipe's timer queries miss the work)" : "GL_TIME_ELAPSED"));
  env.finish(stages);

  // The texture-based matmuls against their stage: 64 FMAs per 8 RGBA32F fetches.
  ResultTable paths(
      "ceiling-matmul", "fragment and transform-feedback matmul against their stage's ceilings",
      {"method", "n", "GFLOPS", "of stage ALU", "G fetches/s", "of stage fetch rate"});
  const int n = quick || sw ? 256 : 2048;
  const auto count = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  std::vector<float> ones(count, 0.5f);
  const auto a = Buffer::from(ctx, ones), b = Buffer::from(ctx, ones);
  Buffer c(ctx, ElementType::Float32, count);
  for (auto [method, stage] : {std::pair{MatmulMethod::FragmentPacked, &fragment},
                               std::pair{MatmulMethod::TransformFeedbackBlocked, &vertex}}) {
    if (stage->alu_gflops <= 0) continue;
    MatmulOptions o;
    o.method = method;
    MatmulPlan plan(ctx, n, n, n, o);
    const double ms = timed_ms(env, plan, [&] { plan.run(a, b, c); });
    const double gflops = 2.0 * n * static_cast<double>(n) * n / (ms * 1e6);
    const double fetch_rate = gflops * 1e9 / 16.0;  // 8 fetches per 64 FMAs = 128 FLOP
    paths.add({std::string(to_string(method)), Cell(static_cast<std::size_t>(n)),
               Cell(gflops, gflops < 100 ? 1 : 0), ratio(gflops, stage->alu_gflops),
               Cell(fetch_rate * 1e-9, 3), ratio(fetch_rate, stage->fetches_per_s)});
  }
  paths.note("times include packing the operands into textures and gathering C (every pass)");
  env.finish(paths);
}

}  // namespace gpgpu::bench::datapath
