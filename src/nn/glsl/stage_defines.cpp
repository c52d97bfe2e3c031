// A stage's #defines (stage_defines.hpp).
#include "glsl/stage_defines.hpp"

#include <initializer_list>
#include <utility>

#include <fmt/format.h>

#include "glsl/snippets.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::nn::detail {

std::string glsl_float(double value) {
  std::string text = fmt::format("{:.9g}", value);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

std::string glsl_int(std::size_t value, const char* what) {
  if (value > 0x7FFFFFFFull) {
    throw LimitError(
        fmt::format("nn: {} = {} exceeds the 2^31 - 1 that GLSL int indices reach; "
                    "use a smaller batch",
                    what, value));
  }
  return std::to_string(value);
}

Defines activation_defines(const Activation& act, const Activation& input_act) {
  Defines d;
  auto add = [&](const char* prefix, const Activation& a) {
    const std::string p(prefix);
    d.emplace_back(p, std::to_string(static_cast<int>(a.kind)));
    d.emplace_back(p + "_A", glsl_float(a.a));
    d.emplace_back(p + "_B", glsl_float(a.b));
  };
  add("ACT", act);
  add("IN_ACT", input_act);
  return d;
}

namespace {

void add_ints(Defines& d, std::initializer_list<std::pair<const char*, std::size_t>> values) {
  for (auto [name, value] : values) d.emplace_back(name, glsl_int(value, name));
}

void add_kind(Defines& d, const Stage& s, std::size_t batch, Mode mode) {
  switch (s.kind) {
    case Stage::Kind::Conv: {
      const ConvGeometry g = s.conv();
      add_ints(d, {{"BATCH", batch},
                   {"CI", g.ci},
                   {"IH", g.ih},
                   {"IW", g.iw},
                   {"CO", g.co},
                   {"OH", g.oh},
                   {"OW", g.ow},
                   {"KS", g.kernel},
                   {"STRIDE", g.stride},
                   {"PAD_T", g.pad.top},
                   {"PAD_L", g.pad.left},
                   {"KK", g.taps()},
                   {"KC", g.depth()},
                   {"OHW", g.out_plane()},
                   {"IHW", g.in_plane()},
                   {"W_OFF", s.offsets[0]},
                   {"B_OFF", s.offsets[1]}});
      return;
    }
    case Stage::Kind::Dense:
      add_ints(d, {{"BATCH", batch},
                   {"NIN", s.in[0]},
                   {"NOUT", s.out[0]},
                   {"W_OFF", s.offsets[0]},
                   {"B_OFF", s.offsets[1]}});
      return;
    case Stage::Kind::MaxPool:
    case Stage::Kind::AvgPool: {
      const PoolGeometry g = s.pool();
      add_ints(d, {{"IH", g.ih},
                   {"IW", g.iw},
                   {"OH", g.oh},
                   {"OW", g.ow},
                   {"SIZE_Y", g.size_y},
                   {"SIZE_X", g.size_x},
                   {"STRIDE", g.stride},
                   {"PAD_T", g.pad.top},
                   {"PAD_L", g.pad.left},
                   {"PAD_B", g.pad.bottom},
                   {"PAD_R", g.pad.right}});
      if (g.max) d.emplace_back("MAX_POOL", "");
      if (g.clipped()) d.emplace_back("CLIPPED", "");
      if (g.count_include_pad) d.emplace_back("COUNT_PAD", "");
      if (mode == Mode::Train) d.emplace_back("TRAIN", "");
      return;
    }
    case Stage::Kind::Dropout: {
      const double rate = s.dropout_rate();
      d.emplace_back("RATE", glsl_float(rate));
      d.emplace_back("SCALE", glsl_float(1.0 / (1.0 - rate)));
      return;
    }
    case Stage::Kind::Softmax:
      add_ints(d, {{"F", s.out[0]}});
      return;
    case Stage::Kind::BatchNorm: {
      const auto& bn = std::get<BatchNorm>(s.spec);
      add_ints(d, {{"BATCH", batch},
                   {"C", s.channels()},
                   {"HW", s.channel_size()},
                   {"GAMMA_OFF", s.offsets[0]},
                   {"BETA_OFF", s.offsets[1]},
                   {"MEAN_OFF", s.offsets[2]},
                   {"VAR_OFF", s.offsets[3]}});
      d.emplace_back("EPS", glsl_float(bn.epsilon));
      d.emplace_back("MOMENTUM", glsl_float(bn.momentum));
      if (mode == Mode::Train) d.emplace_back("TRAIN", "");
      return;
    }
    default:
      return;
  }
}

}  // namespace

Defines stage_defines(const Stage& stage, std::size_t batch, Mode mode) {
  Defines d = activation_defines(stage.act, stage.input_act);
  add_kind(d, stage, batch, mode);
  return d;
}

}  // namespace gpgpu::nn::detail
