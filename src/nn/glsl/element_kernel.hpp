// Internal: element-wise kernels of both GPU backends, each described once. A description
// names its operands — inputs read at the element's own index, inputs read anywhere,
// outputs — and a GLSL body over the snippets of glsl/ops.hpp; each path renders its own
// entry point from it:
//   compute             one invocation per element; every operand a storage buffer
//   transform feedback  one vertex per element; inputs at its own index as attributes,
//                       the others as textures, outputs captured varyings
// In the body, `int i` is the element, IN(a) reads operand a at i, OUT(a) = v writes it,
// LOAD(a, j) reads a gathered operand anywhere, and XIN_GRAD is the derivative of the
// activation that produced the stage's input (1 when none did), taken at the input.
#pragma once

#include <string>
#include <vector>

#include "plan/stage_plan.hpp"

namespace gpgpu::nn::detail::glsl {

// When a kernel has an operand: the stage conditions its #if tests.
enum class When { Always, InputActivation, OutputActivation, MaxPool, MaxPoolTraining, Training };

// The facts those conditions are about, for a stage (or for a kernel outside one).
struct Conditions {
  Act act = Act::None;        // ACT
  Act input_act = Act::None;  // IN_ACT
  bool max_pool = false;      // MAX_POOL
  bool train = false;         // TRAIN
  static Conditions of(const Stage& stage, Mode mode);
  bool hold(When when) const;
};

struct Operand {
  const char* name;  // the GLSL name and the binding name
  When when = When::Always;
};

struct ElementKernel {
  const char* name;                      // "dropout backward", for labels
  std::vector<const char*> snippets;     // glsl/ops.hpp functions the body calls
  std::vector<Operand> element_inputs;   // IN(a)
  std::vector<Operand> gathered_inputs;  // LOAD(a, j)
  std::vector<Operand> outputs;          // OUT(a) = ...
  bool input_activation = false;         // the body uses XIN_GRAD (binds xin when IN_ACT != 0)
  const char* body;
};

std::string compute_source(const ElementKernel& kernel);
std::string transform_feedback_source(const ElementKernel& kernel);

// The kernels. scale: dst = src times the output activation's derivative (ACT), turning
// dL/d(output) into dL/d(pre-activation); a copy when ACT is 0.
// batchnorm_input_gradient_table: the same with BN_TABLE (glsl/ops.hpp), in four storage
// buffers.
extern const ElementKernel scale, activation_forward, pass_backward, dropout_forward,
    dropout_backward, pool_forward, pool_backward, softmax_forward, softmax_backward,
    batchnorm_normalize, batchnorm_input_gradient, batchnorm_input_gradient_table;

// The forward and backward kernels of an Activation, Dropout, Softmax, MaxPool or AvgPool
// stage.
const ElementKernel& forward_kernel(Stage::Kind kind);
const ElementKernel& backward_kernel(Stage::Kind kind);

}  // namespace gpgpu::nn::detail::glsl
