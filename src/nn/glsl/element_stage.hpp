// Internal: an Activation, Dropout, Softmax or pooling stage on either GPU backend, from its
// element kernels (element_kernel.hpp). A backend supplies a Path:
//   Array                     its per-stage array type
//   kernel(k, defines, label) the kernel of description k, compiled for it
//   element(a), gathered(a)   an array bound for reading at the element's index, or anywhere
//                             (outputs bind like element inputs)
//   array(n)                  a new array of n floats
//   run(kernel, args, n)      a launch over n elements
//   publish(a)                makes what a kernel wrote to a readable by gathered reads
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "glsl/element_kernel.hpp"
#include "glsl/stage_defines.hpp"
#include "gpgpu/arg.hpp"
#include "plan/staged_plan.hpp"

namespace gpgpu::nn::detail {

// A stage's input x and output y; in training its output gradient dy (before its fused
// activation) and, where the plan has one, the input gradient dx it writes.
template <class Array>
struct GpuStageArrays {
  const Array* x = nullptr;
  Array* y = nullptr;
  const Array* dy = nullptr;
  Array* dx = nullptr;
};

// The arguments of `kernel` under `when`: each operand it has, by name, from `named` (in the
// path's element or gathered form), then `extra` (uniforms, parameters, operands that are
// not stage arrays).
template <class Path>
Args bind_operands(const Path& path, const glsl::ElementKernel& kernel,
                   const glsl::Conditions& when,
                   std::initializer_list<std::pair<const char*, const typename Path::Array*>> named,
                   Args extra) {
  Args args;
  auto add = [&](const glsl::Operand& o, bool gathered) {
    if (!when.hold(o.when)) return;
    for (const auto& [name, array] : named) {
      if (std::string_view(name) != o.name || array == nullptr) continue;
      args.emplace_back(o.name, gathered ? path.gathered(*array) : path.element(*array));
    }
  };
  for (const auto& o : kernel.element_inputs) add(o, false);
  for (const auto& o : kernel.gathered_inputs) add(o, true);
  for (const auto& o : kernel.outputs) add(o, false);
  if (kernel.input_activation) add({"xin", glsl::When::InputActivation}, false);
  for (auto& e : extra) args.push_back(std::move(e));
  return args;
}

template <class Path>
class ElementStage final : public StageKernels {
 public:
  using Array = typename Path::Array;

  ElementStage(Path path, const Stage& stage, std::size_t batch, Mode mode,
               GpuStageArrays<Array> arrays)
      : path_(std::move(path)),
        stage_(stage),
        a_(arrays),
        when_(glsl::Conditions::of(stage, mode)),
        in_(batch * stage.in.size()),
        out_(batch * stage.out.size()) {
    const Defines d = stage_defines(stage, batch, mode);
    const auto label = fmt::format("nn {} (layer {})", layer_type(stage.spec), stage.layer);
    forward_.emplace(path_.kernel(glsl::forward_kernel(stage.kind), d, label));
    if (when_.hold(glsl::When::MaxPoolTraining)) arg_ = path_.array(out_);
    if (a_.dx != nullptr) {
      backward_.emplace(path_.kernel(glsl::backward_kernel(stage.kind), d, label + " backward"));
    }
  }

  void forward(std::uint32_t seed) override {
    if (stage_.kind == Stage::Kind::Dropout) mask_ = stage_.mask_seed(seed);
    path_.run(*forward_,
              bind_operands(path_, glsl::forward_kernel(stage_.kind), when_,
                            {{"x", a_.x}, {"y", a_.y}, {"arg", &arg_}}, seed_arg()),
              out_);
    if (arg_.valid()) path_.publish(arg_);
  }

  void backward() override {
    if (!backward_) return;
    path_.run(
        *backward_,
        bind_operands(path_, glsl::backward_kernel(stage_.kind), when_,
                      {{"dy", a_.dy}, {"dx", a_.dx}, {"y", a_.y}, {"xin", a_.x}, {"arg", &arg_}},
                      seed_arg()),
        in_);
  }

 private:
  Args seed_arg() const {
    if (stage_.kind != Stage::Kind::Dropout) return {};
    return {{"seed", mask_}};
  }

  Path path_;
  const Stage& stage_;
  GpuStageArrays<Array> a_;
  glsl::Conditions when_;
  std::size_t in_, out_;
  std::optional<typename Path::Kernel> forward_, backward_;
  Array arg_;  // max pooling in training: each window's largest input
  std::uint32_t mask_ = 0;
};

}  // namespace gpgpu::nn::detail
