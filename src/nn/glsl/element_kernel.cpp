// The element-wise kernels (element_kernel.hpp): their descriptions and the two renderings.
#include "glsl/element_kernel.hpp"

#include <fmt/format.h>

#include "glsl/ops.hpp"

namespace gpgpu::nn::detail::glsl {

Conditions Conditions::of(const Stage& stage, Mode mode) {
  return {stage.act.kind, stage.input_act.kind, stage.kind == Stage::Kind::MaxPool,
          mode == Mode::Train};
}

bool Conditions::hold(When when) const {
  switch (when) {
    case When::Always:
      return true;
    case When::InputActivation:
      return input_act != Act::None;
    case When::OutputActivation:
      return act != Act::None;
    case When::MaxPool:
      return max_pool;
    case When::MaxPoolTraining:
      return max_pool && train;
    case When::Training:
      return train;
  }
  return true;
}

namespace {

const char* condition(When when) {
  switch (when) {
    case When::Always:
      return nullptr;
    case When::InputActivation:
      return "IN_ACT != 0";
    case When::OutputActivation:
      return "ACT != 0";
    case When::MaxPool:
      return "defined(MAX_POOL)";
    case When::MaxPoolTraining:
      return "defined(MAX_POOL) && defined(TRAIN)";
    case When::Training:
      return "defined(TRAIN)";
  }
  return nullptr;
}

// `line` for the operand, inside #if when it is conditional.
std::string declare(const Operand& o, const std::string& line) {
  const char* c = condition(o.when);
  return c ? fmt::format("#if {}\n{}\n#endif\n", c, line) : line + "\n";
}

// The derivative of the input's activation at the element: XIN_GRAD.
std::string input_activation(const char* declaration, const char* read) {
  return fmt::format(
      "#if IN_ACT != 0\n{}\n#define XIN_GRAD in_act_grad({})\n#else\n#define XIN_GRAD "
      "1.0\n#endif\n",
      declaration, read);
}

std::string snippets_of(const ElementKernel& k) {
  std::string text;
  for (const char* s : k.snippets) text += s;
  return text;
}

}  // namespace

std::string compute_source(const ElementKernel& k) {
  std::string text =
      "layout(local_size_x = gpgpu_group_size) in;\n#define IN(a) a[i]\n#define OUT(a) a[i]\n";
  int binding = 0;
  auto buffer = [&](const Operand& o, const char* access) {
    text += declare(o, fmt::format("layout(std430, binding = {}) {} buffer B_{} {{ float {}[]; }};",
                                   binding++, access, o.name, o.name));
  };
  for (const auto& o : k.element_inputs) buffer(o, "readonly");
  for (const auto& o : k.gathered_inputs) buffer(o, "readonly");
  for (const auto& o : k.outputs) buffer(o, "writeonly");
  if (k.input_activation) {
    text += input_activation(
        fmt::format("layout(std430, binding = {}) readonly buffer B_xin {{ float xin[]; }};",
                    binding)
            .c_str(),
        "xin[i]");
  }
  return text + snippets_of(k) +
         fmt::format(
             "void main() {{\n  uint index = gpgpu_index();\n  if (index >= gpgpu_count) "
             "return;\n  int i = int(index);\n{}\n}}\n",
             k.body);
}

std::string transform_feedback_source(const ElementKernel& k) {
  std::string text = "#define IN(a) a\n#define OUT(a) a\n";
  for (const auto& o : k.element_inputs) text += declare(o, fmt::format("in float {};", o.name));
  for (const auto& o : k.gathered_inputs) {
    text += declare(o, fmt::format("uniform highp sampler2D {};", o.name));
  }
  for (const auto& o : k.outputs) text += declare(o, fmt::format("out float {};", o.name));
  if (k.input_activation) text += input_activation("in float xin;", "xin");
  return text + snippets_of(k) +
         fmt::format("void main() {{\n  int i = gpgpu_index();\n{}\n}}\n", k.body);
}

const ElementKernel scale{"scale",        {},    {{"src"}, {"y", When::OutputActivation}}, {},
                          {{"dst"}},      false,
                          R"(#if ACT != 0
  OUT(dst) = IN(src) * act_grad_of_output(IN(y));
#else
  OUT(dst) = IN(src);
#endif)"};

const ElementKernel activation_forward{
    "activation", {}, {{"x"}}, {}, {{"y"}}, false, "  OUT(y) = apply_act(IN(x));"};

// The consumer already applied f' (plan/stage_plan.hpp): dx = dy times the input's f'.
const ElementKernel pass_backward{"activation backward",           {}, {{"dy"}}, {}, {{"dx"}}, true,
                                  "  OUT(dx) = IN(dy) * XIN_GRAD;"};

const ElementKernel dropout_forward{"dropout",
                                    {dropout},
                                    {{"x"}},
                                    {},
                                    {{"y"}},
                                    false,
                                    "  OUT(y) = dropout_keeps(i) ? IN(x) * SCALE : 0.0;"};

const ElementKernel dropout_backward{
    "dropout backward",
    {dropout},
    {{"dy"}},
    {},
    {{"dx"}},
    true,
    "  OUT(dx) = (dropout_keeps(i) ? IN(dy) * SCALE : 0.0) * XIN_GRAD;"};

const ElementKernel pool_forward{"pooling",
                                 {pooling_area, pooling},
                                 {},
                                 {{"x"}},
                                 {{"y"}, {"arg", When::MaxPoolTraining}},
                                 false,
                                 R"(  int best_at;
  OUT(y) = pool_output(i, best_at);
#if defined(MAX_POOL) && defined(TRAIN)
  OUT(arg) = float(best_at);
#endif)"};

const ElementKernel pool_backward{"pooling backward",
                                  {pooling_area, pooling_gradient},
                                  {},
                                  {{"dy"}, {"arg", When::MaxPool}},
                                  {{"dx"}},
                                  true,
                                  "  OUT(dx) = pool_input_gradient(i) * XIN_GRAD;"};

const ElementKernel softmax_forward{
    "softmax", {softmax}, {}, {{"x"}}, {{"y"}}, false, "  OUT(y) = softmax_at(i);"};

const ElementKernel softmax_backward{"softmax backward",
                                     {softmax_gradient},
                                     {},
                                     {{"y"}, {"dy"}},
                                     {{"dx"}},
                                     true,
                                     "  OUT(dx) = softmax_gradient_at(i) * XIN_GRAD;"};

const ElementKernel batchnorm_normalize{"batchnorm",
                                        {batchnorm_output},
                                        {{"x"}},
                                        {{"p"}, {"stats", When::Training}},
                                        {{"y"}},
                                        false,
                                        "  OUT(y) = bn_normalized(i, IN(x));"};

const ElementKernel batchnorm_input_gradient{"batchnorm input gradient",
                                             {batchnorm_gradient},
                                             {{"x"}, {"dy"}},
                                             {{"p"}, {"stats"}, {"sums"}},
                                             {{"dx"}},
                                             false,
                                             "  OUT(dx) = bn_input_gradient(i, IN(x), IN(dy));"};

const ElementKernel batchnorm_input_gradient_table{batchnorm_input_gradient.name,
                                                   batchnorm_input_gradient.snippets,
                                                   {{"x"}, {"dy"}},
                                                   {{"stats"}},
                                                   {{"dx"}},
                                                   false,
                                                   batchnorm_input_gradient.body};

const ElementKernel& forward_kernel(Stage::Kind kind) {
  switch (kind) {
    case Stage::Kind::Dropout:
      return dropout_forward;
    case Stage::Kind::Softmax:
      return softmax_forward;
    case Stage::Kind::MaxPool:
    case Stage::Kind::AvgPool:
      return pool_forward;
    default:
      return activation_forward;
  }
}

const ElementKernel& backward_kernel(Stage::Kind kind) {
  switch (kind) {
    case Stage::Kind::Dropout:
      return dropout_backward;
    case Stage::Kind::Softmax:
      return softmax_backward;
    case Stage::Kind::MaxPool:
    case Stage::Kind::AvgPool:
      return pool_backward;
    default:
      return pass_backward;
  }
}

}  // namespace gpgpu::nn::detail::glsl
