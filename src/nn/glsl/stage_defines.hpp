// Internal: a stage's shapes, parameter offsets and switches as the #defines every GPU
// kernel of it is compiled with (the same for both GPU backends): sizes become constants,
// so that divisions by them become multiplications.
//   every stage   ACT ACT_A ACT_B, IN_ACT IN_ACT_A IN_ACT_B (glsl/snippets.hpp)
//   Conv          BATCH CI IH IW CO OH OW KS STRIDE PAD_T PAD_L KK KC OHW IHW W_OFF B_OFF
//   Dense         BATCH NIN NOUT W_OFF B_OFF
//   pooling       IH IW OH OW SIZE_Y SIZE_X STRIDE PAD_T PAD_L PAD_B PAD_R, MAX_POOL, TRAIN,
//                 CLIPPED (some window reaches past the input), COUNT_PAD
//   Dropout       RATE SCALE
//   Softmax       F
//   BatchNorm     BATCH C HW GAMMA_OFF BETA_OFF MEAN_OFF VAR_OFF EPS MOMENTUM, TRAIN
#pragma once

#include <cstddef>
#include <string>

#include "gpgpu/defines.hpp"
#include "plan/stage_plan.hpp"

namespace gpgpu::nn::detail {

Defines stage_defines(const Stage& stage, std::size_t batch, Mode mode);

// A float as a GLSL literal ("0.5", "1e-05").
std::string glsl_float(double value);
// An extent as a GLSL int define, or LimitError when it does not fit an int.
std::string glsl_int(std::size_t value, const char* what);

}  // namespace gpgpu::nn::detail
