#include "gpgpu/fragment_kernel.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "binding/binding.hpp"
#include "binding/run_checks.hpp"
#include "binding/texture_binding.hpp"
#include "gl/framebuffer.hpp"
#include "gl/gl_name.hpp"
#include "gl/gpu_timer.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/texture.hpp"
#include "kernels/kernel_core.hpp"
#include "resources/texel_format.hpp"
#include "resources/texture_readback.hpp"
#include "shader/glsl_helpers.hpp"
#include "shader/glsl_source.hpp"
#include "shader/program.hpp"

namespace gpgpu {

namespace {

// One triangle whose corners (-1,-1), (3,-1), (-1,3) cover the whole viewport: every
// output texel gets exactly one fragment, and no diagonal seam splits the grid.
constexpr std::string_view covering_triangle = R"(
void main() {
  vec2 corner = vec2(float((gl_VertexID & 1) * 4 - 1), float((gl_VertexID & 2) * 2 - 1));
  gl_Position = vec4(corner, 0.0, 1.0);
}
)";

std::string fragment_prelude() {
  return std::string(
             "uniform int gpgpu_count;\n"
             "uniform int gpgpu_width;\n"
             "ivec2 gpgpu_coord() { return ivec2(gl_FragCoord.xy); }\n"
             "int gpgpu_index() {\n"
             "  ivec2 c = ivec2(gl_FragCoord.xy);\n"
             "  return c.y * gpgpu_width + c.x;\n"
             "}\n") +
         std::string(detail::array_fetch_glsl);
}

// One output's render target for one run.
struct Target {
  const detail::StageVariable* variable = nullptr;
  const NamedArg* arg = nullptr;
  TexelType type = TexelType::Float;  // of the render target (a twin's integer type)
  int location = 0;                   // of the render target
  bool twin = false;                  // renders its bits (a float Texture gets them after)
  const Texture* texture = nullptr;   // the caller's, else one the kernel keeps
  GLuint id = 0;
};

// Sets the pipeline state a draw into the targets relies on and restores the defaults
// afterwards, also when a call in between throws.
class RenderScope {
 public:
  RenderScope(GLuint program, GLuint vertex_array, std::size_t cols, std::size_t rows) {
    GL(glUseProgram(program));
    GL(glBindVertexArray(vertex_array));
    GL(glDisable(GL_BLEND));
    GL(glDisable(GL_DEPTH_TEST));
    GL(glDisable(GL_STENCIL_TEST));
    GL(glDisable(GL_CULL_FACE));
    GL(glDisable(GL_DITHER));
    GL(glDisable(GL_RASTERIZER_DISCARD));
    GL(glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE));
    GL(glViewport(0, 0, static_cast<GLsizei>(cols), static_cast<GLsizei>(rows)));
  }
  // Draws the covering triangle, limited to the given rectangle of texels.
  void draw(std::size_t x, std::size_t y, std::size_t width, std::size_t height) {
    GL(glEnable(GL_SCISSOR_TEST));
    GL(glScissor(static_cast<GLint>(x), static_cast<GLint>(y), static_cast<GLsizei>(width),
                 static_cast<GLsizei>(height)));
    GL(glDrawArrays(GL_TRIANGLES, 0, 3));
  }
  ~RenderScope() {
    glDisable(GL_SCISSOR_TEST);
    glEnable(GL_DITHER);
    glBindVertexArray(0);
    glUseProgram(0);
    glGetError();
  }
  RenderScope(const RenderScope&) = delete;
  RenderScope& operator=(const RenderScope&) = delete;
};

std::size_t grid_limit(const DeviceInfo& info) {
  return static_cast<std::size_t>(
      std::min({info.max_texture_size, info.max_viewport_dims[0], info.max_viewport_dims[1]}));
}

// Every output must be renderable: a type with a colour-renderable format (float, vec2,
// vec4, int, uint, ivec4, uvec4; vec3's RGB32F is not renderable in OpenGL ES), float
// targets only with GL_EXT_color_buffer_float, locations within GL_MAX_DRAW_BUFFERS.
bool has_twin(const std::vector<detail::FragmentBitsTwin>& twins, const std::string& output) {
  return std::any_of(twins.begin(), twins.end(),
                     [&](const detail::FragmentBitsTwin& t) { return t.output == output; });
}

void check_outputs(const std::vector<detail::StageVariable>& outputs, const DeviceInfo& info,
                   const std::string& label, const std::vector<detail::FragmentBitsTwin>& twins) {
  if (outputs.empty()) {
    throw UnsupportedError(fmt::format(
        "{}: the fragment shader declares no `out` variables, so it computes nothing; declare "
        "the results as `layout(location = N) out ...`",
        label));
  }
  for (const auto& v : outputs) {
    TexelType type;
    if (v.name.rfind("gpgpu_", 0) == 0) continue;  // an integer twin (bits_twins)
    if (v.array_size > 1) {
      throw UnsupportedError(fmt::format(
          "{}: output {} {}[{}] is an array; declare one `layout(location = N) out` per result",
          label, v.type.name, v.name, v.array_size));
    }
    if (!detail::texel_type_for_glsl(v.type.gl, type)) {
      throw UnsupportedError(fmt::format(
          "{}: output {} {} cannot be rendered into a texture; declare it float, vec2, vec4, "
          "int, uint, ivec4 or uvec4",
          label, v.type.name, v.name));
    }
    if (type == TexelType::Vec3) {
      throw UnsupportedError(fmt::format(
          "{}: output vec3 {} cannot be rendered: OpenGL ES has no colour-renderable 3-channel "
          "float format (RGB32F); declare it vec4 and ignore the fourth component",
          label, v.name));
    }
    if (element_type(type) == ElementType::Float32 && !info.has_color_buffer_float() &&
        !has_twin(twins, v.name)) {
      throw UnsupportedError(fmt::format(
          "{}: output {} {} renders into a {} texture, which needs GL_EXT_color_buffer_float, "
          "and this device ({}) lacks it; use a ComputeKernel or a TransformFeedbackKernel",
          label, v.type.name, v.name, to_string(type), info.renderer));
    }
    if (v.location < 0 || v.location >= info.max_draw_buffers) {
      throw DeviceLimitError(
          fmt::format("{}: output {} is at location {}, but the device renders into locations "
                      "0 to {} (GL_MAX_DRAW_BUFFERS = {}{})",
                      label, v.name, v.location, info.max_draw_buffers - 1, info.max_draw_buffers,
                      info.limit_profile.empty() ? "" : ", profile " + info.limit_profile),
          "GL_MAX_DRAW_BUFFERS", std::int64_t{v.location} + 1, info.max_draw_buffers);
    }
  }
}

// Float targets without GL_EXT_color_buffer_float (OpenGL ES 3.1's minimum): the user's
// main() is renamed, and a main() of gpgpu's calls it and writes each float or vec4 output's
// bits (floatBitsToUint) into a uint or uvec4 twin at a free location. Integer targets are
// core in OpenGL ES 3.0, and the bits come back unchanged; the user's outputs stay declared
// (the shader may read them back) with no render target behind them.
constexpr const char* wrap_main = "#define main gpgpu_user_main\n";

std::vector<detail::FragmentBitsTwin> bits_twins(const std::vector<detail::StageVariable>& outputs,
                                                 const DeviceInfo& info, const std::string& label) {
  std::vector<detail::FragmentBitsTwin> twins;
  if (info.has_color_buffer_float()) return twins;
  int next = 0;
  for (const auto& v : outputs) next = std::max(next, v.location + 1);
  for (const auto& v : outputs) {
    TexelType type;
    if (v.array_size > 1 || !detail::texel_type_for_glsl(v.type.gl, type) ||
        element_type(type) != ElementType::Float32) {
      continue;  // arrays and types without a texture are check_outputs' to refuse
    }
    if (type != TexelType::Float && type != TexelType::Vec4) {
      throw UnsupportedError(fmt::format(
          "{}: output {} {} renders into a {} texture, which needs GL_EXT_color_buffer_float, "
          "and this device ({}) lacks it; declare it vec4 (rendered through integer targets, "
          "bit for bit) or use a ComputeKernel",
          label, v.type.name, v.name, to_string(type), info.renderer));
    }
    twins.push_back(
        {v.name, next++, type == TexelType::Float ? TexelType::Uint : TexelType::UVec4});
  }
  const auto needed = static_cast<std::int64_t>(next);
  if (!twins.empty() && needed > info.max_draw_buffers) {
    throw DeviceLimitError(
        fmt::format("{}: {} float outputs are rendered through integer targets at extra "
                    "locations (this device has no GL_EXT_color_buffer_float), which needs {} "
                    "locations; this device allows {} (GL_MAX_DRAW_BUFFERS{})",
                    label, twins.size(), needed, info.max_draw_buffers,
                    info.limit_profile.empty() ? "" : ", profile " + info.limit_profile),
        "GL_MAX_DRAW_BUFFERS", needed, info.max_draw_buffers);
  }
  return twins;
}

// The twins' declarations and the main() that fills them, appended after the user's source.
std::string twins_main(const std::vector<detail::FragmentBitsTwin>& twins) {
  std::string declarations = "#undef main\n", body;
  for (const auto& t : twins) {
    const char* type = t.type == TexelType::Uint ? "uint" : "uvec4";
    declarations += fmt::format("layout(location = {}) out highp {} gpgpu_bits_{};\n", t.location,
                                type, t.output);
    body += fmt::format("  gpgpu_bits_{0} = floatBitsToUint({0});\n", t.output);
  }
  return declarations + "void main() {\n  gpgpu_user_main();\n" + body + "}\n";
}

// A float Texture output rendered through its integer twin: the twin's bits are stored into
// the Texture as floats by a compute pass (r32f and rgba32f images are core in OpenGL ES 3.1).
constexpr std::string_view bits_to_image_source = R"(
layout(local_size_x = 8, local_size_y = 8) in;
uniform highp usampler2D bits;
layout(FORMAT, binding = 0) writeonly uniform highp image2D dst;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = imageSize(dst);
  if (p.x < size.x && p.y < size.y) imageStore(dst, p, uintBitsToFloat(texelFetch(bits, p, 0)));
}
)";

void copy_bits_into(detail::ContextState& state, GLuint bits, const Texture& texture,
                    TexelType twin) {
  const bool vec4 = twin == TexelType::UVec4;
  const detail::ShaderStage stage{
      GL_COMPUTE_SHADER,
      detail::complete_source(bits_to_image_source, GL_COMPUTE_SHADER, state.info,
                              {{"FORMAT", vec4 ? "rgba32f" : "r32f"}}, ""),
      std::string(bits_to_image_source)};
  const auto program = detail::cached_program(state, "fragment-bits\n" + stage.source, {stage}, {},
                                              "gpgpu float output through integer bits");
  const auto& pi = program->interface();
  GL(glUseProgram(program->id()));
  GL(glActiveTexture(GL_TEXTURE0));
  GL(glBindTexture(GL_TEXTURE_2D, bits));
  // An integer texture with the default (mipmapped, linear) filters is incomplete, and
  // texelFetch then reads zeros.
  GL(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST));
  GL(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST));
  if (const auto* u = pi.find_uniform("bits")) GL(glUniform1i(u->location, 0));
  GL(glBindImageTexture(0, texture.gl_name(), 0, GL_FALSE, 0, GL_WRITE_ONLY,
                        vec4 ? GL_RGBA32F : GL_R32F));
  const auto groups = [](std::size_t extent) { return static_cast<GLuint>((extent + 7) / 8); };
  GL(glDispatchCompute(groups(texture.cols()), groups(texture.rows()), 1));
  GL(glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT |
                     GL_FRAMEBUFFER_BARRIER_BIT | GL_TEXTURE_UPDATE_BARRIER_BIT));
  GL(glBindImageTexture(0, 0, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32F));
  GL(glBindTexture(GL_TEXTURE_2D, 0));
  GL(glUseProgram(0));
}

}  // namespace

FragmentKernel::FragmentKernel(const Context& context, std::string_view fragment_source,
                               const Defines& defines, std::string label)
    : state_(context.state()), label_(std::move(label)) {
  state_->ensure_current();
  const auto& info = state_->info;
  const detail::ShaderStage vertex{
      GL_VERTEX_SHADER, detail::complete_source(covering_triangle, GL_VERTEX_SHADER, info, {}, ""),
      std::string(covering_triangle)};
  const detail::ShaderStage fragment{GL_FRAGMENT_SHADER,
                                     detail::complete_source(fragment_source, GL_FRAGMENT_SHADER,
                                                             info, defines, fragment_prelude()),
                                     std::string(fragment_source)};
  program_ = detail::cached_program(*state_, "fragment\n" + fragment.source, {vertex, fragment}, {},
                                    label_);
  twins_ = bits_twins(program_->interface().outputs, info, label_);
  if (!twins_.empty()) {
    const detail::ShaderStage wrapped{
        GL_FRAGMENT_SHADER,
        detail::complete_source(fragment_source, GL_FRAGMENT_SHADER, info, defines,
                                fragment_prelude() + wrap_main) +
            twins_main(twins_),
        std::string(fragment_source)};
    program_ = detail::cached_program(*state_, "fragment\n" + wrapped.source, {vertex, wrapped}, {},
                                      label_);
  }
  check_outputs(program_->interface().outputs, info, label_, twins_);
}

FragmentKernel::~FragmentKernel() = default;
FragmentKernel::FragmentKernel(FragmentKernel&&) noexcept = default;
FragmentKernel& FragmentKernel::operator=(FragmentKernel&&) noexcept = default;

const detail::Program& FragmentKernel::program() const {
  if (!state_ || !program_) {
    throw Error(
        "this FragmentKernel was moved from and has no program; use the kernel it was "
        "moved into");
  }
  return *program_;
}

const std::string& FragmentKernel::label() const {
  program();
  return label_;
}

std::vector<KernelVariable> FragmentKernel::variables() const {
  std::vector<KernelVariable> vars;
  const auto& pi = program().interface();
  auto add = [&](KernelVariable::Kind kind, const std::string& name, const detail::GlslType& t,
                 std::int64_t array_size) {
    KernelVariable v;
    v.kind = kind;
    v.name = name;
    v.glsl_type = t.name;
    v.element = t.element;
    v.components = t.components();
    v.array_size = array_size;
    vars.push_back(v);
  };
  for (const auto& u : pi.uniforms) {
    if (u.name.rfind("gpgpu_", 0) == 0) continue;
    add(u.type.is_sampler ? KernelVariable::Kind::Sampler
        : u.type.is_image ? KernelVariable::Kind::Image
                          : KernelVariable::Kind::Uniform,
        u.name, u.type, u.array_size);
  }
  for (const auto& v : pi.outputs) add(KernelVariable::Kind::Output, v.name, v.type, 1);
  return vars;
}

void FragmentKernel::run(const Args& args) {
  start(args, Grid{}, false);
}

void FragmentKernel::run(const Args& args, std::size_t rows, std::size_t cols) {
  if (rows == 0 || cols == 0) {
    throw ArgumentError(fmt::format("{}: an empty grid of {} x {} elements", label(), rows, cols));
  }
  start(args, Grid{rows, cols, rows * cols, true}, false);
}

PendingRun FragmentKernel::run_async(const Args& args) {
  return start(args, Grid{}, true);
}

PendingRun FragmentKernel::run_async(const Args& args, std::size_t rows, std::size_t cols) {
  if (rows == 0 || cols == 0) {
    throw ArgumentError(fmt::format("{}: an empty grid of {} x {} elements", label(), rows, cols));
  }
  return start(args, Grid{rows, cols, rows * cols, true}, true);
}

namespace {

struct GridShape {
  std::size_t rows = 0, cols = 0, count = 0;
  bool explicit_shape = false;
};

// validate: each output takes a Texture of its type or a writable host array.
std::vector<Target> check_targets(const detail::ResolvedArgs& resolved,
                                  const detail::ContextState* owner,
                                  const std::vector<detail::FragmentBitsTwin>& twins,
                                  const std::string& name) {
  std::vector<Target> targets;
  for (auto [variable, arg] : resolved.outputs) {
    Target t;
    t.variable = variable;
    t.arg = arg;
    t.location = variable->location;
    detail::texel_type_for_glsl(variable->type.gl, t.type);  // checked when compiled
    const std::string& output = variable->name;  // (clang 14 captures no structured binding)
    const auto twin = std::find_if(twins.begin(), twins.end(),
                                   [&](const auto& tw) { return tw.output == output; });
    const Arg& v = arg->value;
    if (twin != twins.end() && v.kind() == Arg::Kind::DeviceTexture &&
        !owner->info.has_compute_shaders()) {
      throw UnsupportedError(fmt::format(
          "{}: output {} {} renders into a Texture of {} texels, which needs "
          "GL_EXT_color_buffer_float, and this device lacks it; give it a host array (rendered "
          "through an integer target, bit for bit)",
          name, variable->type.name, arg->name, to_string(t.type)));
    }
    if (v.kind() == Arg::Kind::DeviceTexture) {
      detail::check_texture_arg(*arg, owner, name, fmt::format("output '{}'", arg->name));
      const Texture& texture = *v.texture();
      if (texture.dimensions() != 2 || texture.texel_type() != t.type) {
        throw TypeMismatchError(fmt::format(
            "{}: output {} {} renders into a 2-D texture of {} texels, but it was given {}", name,
            variable->type.name, arg->name, to_string(t.type), texture.describe()));
      }
      t.texture = &texture;
    } else if (v.kind() == Arg::Kind::HostArray) {
      if (v.access() == Access::Read || v.writable_data() == nullptr) {
        throw ArgumentError(fmt::format(
            "{}: output '{}' was given a read-only array; pass a non-const std::vector, "
            "gpgpu::out(...) or a Texture",
            name, arg->name));
      }
      detail::check_element_type(*arg, variable->type, name, "output");
    } else {
      throw TypeMismatchError(fmt::format(
          "{}: output {} {} takes a Texture (kept on the GPU) or a host array (written back), "
          "not {}",
          name, variable->type.name, arg->name, v.describe()));
    }
    if (twin != twins.end()) {  // the bits, through the integer twin
      t.location = twin->location;
      t.type = twin->type;
      t.twin = true;
    }
    targets.push_back(t);
  }
  return targets;
}

// plan: the grid — given, else the Texture outputs' shape, else a 1-D grid of the host
// outputs' length, W = min(n, limit, max_width) wide.
GridShape plan_grid(GridShape grid, const std::vector<Target>& targets, std::size_t limit,
                    std::size_t max_width, const std::string& name) {
  const Texture* shape_source = nullptr;
  for (const auto& t : targets) {
    if (t.texture == nullptr) continue;
    if (shape_source == nullptr) {
      shape_source = t.texture;
      if (!grid.explicit_shape)
        grid = {t.texture->rows(), t.texture->cols(), t.texture->length(), false};
    }
    if (t.texture->rows() != grid.rows || t.texture->cols() != grid.cols ||
        t.texture->length() != grid.count) {
      throw SizeMismatchError(fmt::format(
          "{}: output '{}' is {}, but the grid is {} x {} ({} elements){}", name, t.arg->name,
          t.texture->describe(), grid.rows, grid.cols, grid.count,
          grid.explicit_shape ? "" : fmt::format(" as given by '{}'", targets[0].arg->name)));
    }
  }
  if (grid.count == 0) {
    std::vector<std::pair<std::string, std::size_t>> named;
    for (const auto& t : targets) {
      named.emplace_back(t.arg->name,
                         detail::whole_elements(*t.arg, t.variable->type, name, "output"));
    }
    const auto counts = detail::agree_on_count(named);
    if (counts.disagree) {
      throw SizeMismatchError(fmt::format(
          "{}: the outputs disagree in their number of elements ({}); give run() the grid's rows "
          "and columns or outputs of one length",
          name, counts.text));
    }
    const std::size_t n = counts.common.value_or(0);
    if (n == 0) throw ArgumentError(fmt::format("{}: the outputs are empty", name));
    const std::size_t width = std::min({n, limit, max_width == 0 ? limit : max_width});
    grid = {(n + width - 1) / width, width, n, false};
    if (grid.rows > limit) {
      throw LimitError(fmt::format(
          "{}: {} elements need {} rows of {}, but the device renders at most {} x {} texels "
          "(GL_MAX_TEXTURE_SIZE, GL_MAX_VIEWPORT_DIMS); split the work",
          name, n, grid.rows, width, limit, limit));
    }
  }
  if (grid.rows > limit || grid.cols > limit) {
    throw LimitError(fmt::format(
        "{}: a grid of {} x {} exceeds the device's {} x {} render targets (GL_MAX_TEXTURE_SIZE, "
        "GL_MAX_VIEWPORT_DIMS); split the work",
        name, grid.rows, grid.cols, limit, limit));
  }
  for (const auto& t : targets) {
    if (t.texture != nullptr) continue;
    const std::size_t elements = detail::whole_elements(*t.arg, t.variable->type, name, "output");
    if (elements != grid.count) {
      throw SizeMismatchError(fmt::format(
          "{}: output {} {} has {} elements ({} values), but the grid has {} x {} = {} elements",
          name, t.variable->type.name, t.arg->name, elements, t.arg->value.count(), grid.rows,
          grid.cols, grid.count));
    }
  }
  return grid;
}

// validate: uniforms and input textures (none may also be an output), within the device's
// texture units.
void check_inputs(const detail::ResolvedArgs& resolved, const std::vector<Target>& targets,
                  const DeviceInfo& info, const std::string& name) {
  std::int64_t samplers = 0;
  for (auto [uniform, arg] : resolved.uniforms) {
    detail::check_uniform(*uniform, *arg, name);
    if (!uniform->type.is_opaque()) continue;
    if (detail::is_buffer_sampler(uniform->type.gl)) {  // checked by check_uniform
      ++samplers;
      continue;
    }
    const Texture& input = *arg->value.texture();
    detail::check_texture_binding(input, *uniform, name);
    ++samplers;
    for (const auto& t : targets) {
      if (t.texture == &input ||
          (t.texture != nullptr && t.texture->gl_name() == input.gl_name())) {
        throw ArgumentError(fmt::format(
            "{}: Texture '{}' is both an input ({}) and output '{}'; a texture cannot be read "
            "while it is rendered into — render into another Texture and swap (ping-pong)",
            name, arg->name, uniform->name, t.arg->name));
      }
    }
  }
  if (samplers > info.max_texture_image_units) {
    throw LimitError(
        fmt::format("{}: {} textures are bound but a fragment shader reads at most {} "
                    "(GL_MAX_TEXTURE_IMAGE_UNITS)",
                    name, samplers, info.max_texture_image_units));
  }
}

}  // namespace

namespace {

// The locations below the highest attachment's that no attachment takes.
std::vector<int> unused_locations(const std::vector<detail::ColorAttachment>& attachments) {
  int end = 0;
  for (const auto& a : attachments) end = std::max(end, a.location + 1);
  std::vector<int> unused;
  for (int location = 0; location < end; ++location) {
    if (std::none_of(attachments.begin(), attachments.end(),
                     [&](const auto& a) { return a.location == location; })) {
      unused.push_back(location);
    }
  }
  return unused;
}

}  // namespace

unsigned FragmentKernel::host_target(std::size_t output, TexelType type, std::size_t rows,
                                     std::size_t cols) {
  if (host_targets_.size() <= output) host_targets_.resize(output + 1);
  HostTarget& kept = host_targets_[output];
  if (kept.texture && kept.type == type && kept.rows == rows && kept.cols == cols) {
    return kept.texture.id();
  }
  auto texture = detail::make_gl_name<detail::GlKind::Texture>(*state_);
  GL(glBindTexture(GL_TEXTURE_2D, texture.id()));
  GL(glTexStorage2D(GL_TEXTURE_2D, 1, detail::texel_format(type).internal_format,
                    static_cast<GLsizei>(cols), static_cast<GLsizei>(rows)));
  GL(glBindTexture(GL_TEXTURE_2D, 0));
  kept = HostTarget{type, rows, cols, std::move(texture)};
  return kept.texture.id();
}

// A kernel-owned RGBA8 texture (colour-renderable on every OpenGL ES 3.0 device) for a
// location no output renders into; its values are never read.
unsigned FragmentKernel::placeholder_target(std::size_t location, std::size_t rows,
                                            std::size_t cols) {
  if (placeholders_.size() <= location) placeholders_.resize(location + 1);
  HostTarget& kept = placeholders_[location];
  if (kept.texture && kept.rows == rows && kept.cols == cols) return kept.texture.id();
  auto texture = detail::make_gl_name<detail::GlKind::Texture>(*state_);
  GL(glBindTexture(GL_TEXTURE_2D, texture.id()));
  GL(glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, static_cast<GLsizei>(cols),
                    static_cast<GLsizei>(rows)));
  GL(glBindTexture(GL_TEXTURE_2D, 0));
  kept = HostTarget{TexelType::Vec4, rows, cols, std::move(texture)};
  return kept.texture.id();
}

PendingRun FragmentKernel::start(const Args& args, Grid given, bool async) {
  const auto& pi = program().interface();
  const auto started = std::chrono::steady_clock::now();
  state_->ensure_current();
  state_->refuse_while_capturing("a FragmentKernel run");
  const std::string& name = label_;
  const auto& info = state_->info;
  const auto resolved = detail::resolve_args(pi, args, name, /*outputs_required=*/true);

  // validate and plan, before anything touches the GPU.
  auto targets = check_targets(resolved, state_.get(), twins_, name);
  const GridShape grid = plan_grid({given.rows, given.cols, given.count, given.explicit_shape},
                                   targets, grid_limit(info), max_width_, name);
  check_inputs(resolved, targets, info, name);

  // Render targets: the caller's Textures, or the kernel's own for host outputs. The
  // framebuffer checks that the driver can render into them all.
  std::vector<detail::ColorAttachment> attachments;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    auto& t = targets[i];
    t.id = t.texture != nullptr && !t.twin ? t.texture->gl_name()
                                           : host_target(i, t.type, grid.rows, grid.cols);
    detail::ColorAttachment a;
    a.texture = t.id;
    a.type = t.type;
    a.location = t.location;
    a.what = fmt::format("output {} {}", t.variable->type.name, t.variable->name);
    attachments.push_back(a);
  }
  // Every location below the highest target gets a target: a location with no output (a float
  // output whose bits go to its integer twin) gets a placeholder. OpenGL ES allows GL_NONE draw
  // buffers before a target, but Mesa 22.3's zink over lavapipe, given two of them before two
  // integer targets, frees memory it still uses: wrong values, then heap corruption
  // (tests/drivers/draw_buffer_gaps, docs/portability.md).
  for (const int location : unused_locations(attachments)) {
    detail::ColorAttachment a;
    a.texture = placeholder_target(static_cast<std::size_t>(location), grid.rows, grid.cols);
    a.type = TexelType::Vec4;
    a.location = location;
    a.what = fmt::format("an RGBA8 placeholder at location {}", location);
    attachments.push_back(std::move(a));
  }
  if (!framebuffer_) {
    framebuffer_ = detail::make_gl_name<detail::GlKind::Framebuffer>(*state_);
    vertex_array_ = detail::make_gl_name<detail::GlKind::VertexArray>(*state_);
  }
  detail::RunTransfers io(*state_);
  const detail::FramebufferScope framebuffer(framebuffer_.id(), attachments, name);

  // launch: the whole rows, then the first part of the last row of a 1-D grid, so that no
  // fragment runs past the last element.
  {
    RenderScope scope(program_->id(), vertex_array_.id(), grid.cols, grid.rows);
    detail::set_uniforms(resolved, name);
    detail::set_internal_int(pi, "gpgpu_count", static_cast<GLint>(grid.count));
    detail::set_internal_int(pi, "gpgpu_width", static_cast<GLint>(grid.cols));
    detail::GpuTimer timer(*state_, timing_);
    const std::size_t full_rows = grid.count / grid.cols;
    const std::size_t remainder = grid.count % grid.cols;
    if (full_rows > 0) scope.draw(0, 0, grid.cols, full_rows);
    if (remainder > 0) scope.draw(0, full_rows, remainder, 1);
    last_gpu_ns_ = timer.stop();
    detail::detach_buffer_texels(*state_);
  }
  for (const auto& t : targets) {
    if (t.twin && t.texture != nullptr) copy_bits_into(*state_, t.id, *t.texture, t.type);
  }
  state_->wait_within_timeout(started, name);

  // commit: host outputs are read into pack buffers and come back through the engine.
  for (const auto& t : targets) {
    if (t.texture != nullptr) continue;
    detail::queue_attachment_read(io, t.location, t.type, grid.cols, grid.count,
                                  t.arg->value.writable_data());
  }
  if (async) return io.finish_async();
  io.finish();
  return {};
}

}  // namespace gpgpu
