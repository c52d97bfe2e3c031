// ceiling: what each programmable stage of this device can do — ALU-bound arithmetic and
// texel fetches in a compute shader, a vertex shader (transform feedback) and a fragment
// shader — and the fragment and transform-feedback matmuls as fractions of their stage's
// ceilings. On the H100 the vertex and fragment stages run on few graphics-capable
// multiprocessors: their ALU ceiling is about 1/32 of the compute stage's.
#include <type_traits>

#include <fmt/format.h>

#include "datapath_runner.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/fragment_kernel.hpp"
#include "gpgpu/matmul.hpp"
#include "gpgpu/texture.hpp"
#include "gpgpu/transform_feedback_kernel.hpp"

namespace gpgpu::bench {

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

// One stage's shader: `fetch` times texel fetches, else the ALU chains. The compute stage
// writes o[i], the vertex and fragment stages their output `result`.
std::string stage_source(bool compute, bool fetch) {
  const std::string head =
      fmt::format("uniform int rounds;\nuniform int fetches;\n{}\n{}",
                  fetch ? "uniform highp sampler2D texels;" : "", fetch ? fetch_body : alu_body);
  const char* call = fetch ? "fetch(int(i))" : "alu(float(i))";
  if (!compute) {
    return fmt::format(
        "{}\nout vec4 result;\nvoid main() {{ int i = gpgpu_index(); result = {}; }}", head, call);
  }
  return fmt::format(R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) writeonly buffer Out {{ vec4 o[]; }};
{}
void main() {{
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  o[i] = {};
}})",
                     head, call);
}

// What the stages run: {alu args, fetch args, ALU FLOP, fetch count} over `items` invocations.
struct Work {
  Args alu, fetch;
  double alu_flop, fetch_count;
  std::size_t items;
};

struct StageRates {
  double alu_gflops = -1;
  double fetches_per_s = -1;
};

// A stage's ALU and fetch rates, its kernels writing `out`. Times are the kernel's
// GL_TIME_ELAPSED on a GPU, the fenced wall clock on llvmpipe (whose timer queries do not see
// the shader's work).
template <class Kernel, class Out>
StageRates stage_rates(Session& env, const Work& work, const char* stage, const Out& out) {
  constexpr bool compute = std::is_same_v<Kernel, ComputeKernel>;
  StageRates r;
  for (const bool fetch : {false, true}) {
    Kernel kernel(env.context, stage_source(compute, fetch), {},
                  fmt::format("ceiling {} {}", stage, fetch ? "fetch" : "alu"));
    Args args = fetch ? work.fetch : work.alu;
    args.emplace_back(compute ? "o" : "result", out);
    const bool gpu = !env.software() && env.context.info().has_timer_query();
    const double ms = kernel_ms(env.context, kernel, gpu, env.budget(), [&] {
      if constexpr (compute) kernel.run(args, work.items);
      if constexpr (!compute) kernel.run(args);
    });
    (fetch ? r.fetches_per_s : r.alu_gflops) =
        fetch ? work.fetch_count / (ms * 1e-3) : work.alu_flop / (ms * 1e6);
  }
  return r;
}

}  // namespace

int run_ceiling_bench(const std::filesystem::path& out_dir, bool quick, Context& ctx) {
  Session env(ctx, {out_dir, "datapath-", 1, 5, false});
  env.log << fmt::format("gpgpu stage ceilings on {} ({}), {}\n", env.device, ctx.info().version,
                         env.date);
  const bool sw = env.software();
  // Work sizes: enough that launch overhead is negligible on a GPU, seconds at most on a CPU.
  const std::size_t side = quick || sw ? 256 : 4096;  // fragment grid and vertex count side^2
  const std::size_t items = side * side;
  // A CPU device needs long loops too, or the dispatch dominates (but fewer invocations).
  const int rounds = quick ? 16 : sw ? 512 : 1024;
  const int fetches = quick ? 16 : 256;
  const std::size_t tex_side = quick || sw ? 256 : 2048;
  std::vector<float> texel_values(tex_side * tex_side * 4);
  for (std::size_t i = 0; i < texel_values.size(); ++i)
    texel_values[i] = static_cast<float>(i % 17);
  const auto texels = Texture::from(ctx, TexelType::Vec4, {tex_side, tex_side}, texel_values);
  const Work work{{{"rounds", std::int32_t{rounds}}},
                  {{"fetches", std::int32_t{fetches}}, {"texels", texels}},
                  static_cast<double>(items) * rounds * 64,
                  static_cast<double>(items) * fetches,
                  items};
  StageRates compute, vertex, fragment;
  {
    const Buffer out(ctx, ElementType::Float32, items * 4);
    compute = stage_rates<ComputeKernel>(env, work, "compute", out);
    vertex = stage_rates<TransformFeedbackKernel>(env, work, "vertex", out);
  }
  if (ctx.info().has_color_buffer_float()) {
    fragment = stage_rates<FragmentKernel>(env, work, "fragment",
                                           Texture(ctx, TexelType::Vec4, {side, side}));
  }

  Table stages("ceiling", "per-stage ceilings: ALU-bound FMA chains and texel fetches",
               {"stage", "ALU GFLOPS", "vs compute", "G texel fetches/s", "vs compute"});
  for (const auto& [name, r] : {std::pair<const char*, StageRates>{"compute shader", compute},
                                {"vertex shader + transform feedback", vertex},
                                {"fragment shader into RGBA32F", fragment}}) {
    stages.add({name, Cell::positive(r.alu_gflops, r.alu_gflops < 100 ? 1 : 0),
                ratio_text(r.alu_gflops, compute.alu_gflops),
                Cell::positive(r.fetches_per_s * 1e-9, 3),
                ratio_text(r.fetches_per_s, compute.fetches_per_s)});
  }
  stages.note(fmt::format(
      "{} invocations x {} rounds of 32 vec4-lane FMAs; {} RGBA32F fetches "
      "each from a {}^2 texture; {}",
      items, rounds, fetches, tex_side,
      sw ? "fenced wall clock (llvmpipe's timer queries miss the work)" : "GL_TIME_ELAPSED"));
  env.finish(stages);

  // The texture-based matmuls against their stage: 64 FMAs per 8 RGBA32F fetches.
  Table paths("ceiling-matmul",
              "fragment and transform-feedback matmul against their stage's ceilings",
              {"method", "n", "GFLOPS", "of stage ALU", "G fetches/s", "of stage fetch rate"});
  const int n = quick || sw ? 256 : 2048;
  for (auto [method, stage] : {std::pair{MatmulMethod::FragmentPacked, &fragment},
                               std::pair{MatmulMethod::TransformFeedbackBlocked, &vertex}}) {
    if (stage->alu_gflops <= 0) continue;
    MatmulOptions o;
    o.method = method;
    const double gflops =
        datapath::halves_matmul_gflops(env, n, o, !sw && ctx.info().has_timer_query());
    const double fetch_rate = gflops * 1e9 / 16.0;  // 8 fetches per 64 FMAs = 128 FLOP
    paths.add({std::string(to_string(method)), Cell(n), Cell(gflops, gflops < 100 ? 1 : 0),
               ratio_text(gflops, stage->alu_gflops), Cell(fetch_rate * 1e-9, 3),
               ratio_text(fetch_rate, stage->fetches_per_s)});
  }
  paths.note("times include packing the operands into textures and gathering C (every pass)");
  env.finish(paths);
  return 0;
}

}  // namespace gpgpu::bench
