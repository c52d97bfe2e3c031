// gpgpu — GPU computing with a few lines of GLSL, on any OpenGL ES 3.1+ device.
//
// THE MANUAL IN ONE PAGE
//
//   #include <gpgpu/gpgpu.hpp>
//   gpgpu::Context ctx;                 // a GPU through EGL, else Mesa llvmpipe on the CPU
//   gpgpu::ComputeKernel saxpy(ctx, R"(
//     layout(local_size_x = 128) in;
//     layout(std430, binding = 0) readonly buffer X { float x[]; };
//     layout(std430, binding = 1) buffer Y { float y[]; };
//     uniform float alpha;
//     void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] += alpha * x[i]; })");
//   saxpy.run({{"x", x}, {"y", y}, {"alpha", 2.0f}});   // y is written back
//
// Context (context.hpp)        picks a device: ContextOptions::device or GPGPU_DEVICE
//                              ("auto", an index, or a word of the renderer: "nvidia").
// ComputeKernel (compute_kernel.hpp)  compute shaders over storage buffers.
// Buffer (buffer.hpp)          device-resident arrays: chain kernels with no host copies.
// Sequence (sequence.hpp)      dispatches recorded once, checked once, replayed cheaply.
// Arg (arg.hpp)                how host values bind to the kernel's variables, by name.
// Errors (error.hpp)           every failure is a gpgpu::Error that says what to change.
//
// Binding rules: the kernel's variables are read from the driver after linking; each
// argument is matched by name and checked (element type float/int32/uint32, length, a
// whole number of vecN/matN). Unknown or missing names are errors that list the kernel's
// variables. On any error nothing runs and the caller's arrays are unchanged.
#pragma once

#include "gpgpu/access_trace.hpp"
#include "gpgpu/arg.hpp"
#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/data_path.hpp"
#include "gpgpu/defines.hpp"
#include "gpgpu/element_type.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/fragment_kernel.hpp"
#include "gpgpu/gpgpu_js.hpp"
#include "gpgpu/host_buffer.hpp"
#include "gpgpu/kernel_variable.hpp"
#include "gpgpu/limits.hpp"
#include "gpgpu/matmul.hpp"
#include "gpgpu/pending_run.hpp"
#include "gpgpu/pending_transfer.hpp"
#include "gpgpu/primitives.hpp"
#include "gpgpu/profiler.hpp"
#include "gpgpu/sequence.hpp"
#include "gpgpu/texel_type.hpp"
#include "gpgpu/texture.hpp"
#include "gpgpu/timeline.hpp"
#include "gpgpu/trace.hpp"
#include "gpgpu/transfer_queue.hpp"
#include "gpgpu/transform_feedback_kernel.hpp"
#include "gpgpu/transpose.hpp"
#include "gpgpu/work_group.hpp"
