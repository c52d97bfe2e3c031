// ComputeKernel::run_in_passes: a long loop cut into dispatches, each with the device's whole
// loop budget (see compute_kernel.hpp and docs/reliability.md).
#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "gl/context_state.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu {

namespace {

// The kernel's other loops (and the pass loop's own bookkeeping) get this much of the
// budget when the pass length is the device's.
constexpr std::int64_t other_loop_iterations = 1024;

// Every array a pass writes must hold the previous pass's results when the next one starts.
void check_arrays_carry_state(const Args& args, const std::string& label) {
  for (const auto& arg : args) {
    if (arg.value.kind() == Arg::Kind::HostArray && arg.value.access() == Access::Write) {
      throw ArgumentError(fmt::format(
          "{}: '{}' is write-only (gpgpu::out), but a kernel run in passes reads what the "
          "previous pass wrote, and write-only arrays are never uploaded; pass it read-write "
          "(a non-const array, gpgpu::inout) or as a Buffer",
          label, arg.name));
    }
  }
}

// Restores the plain-run pass range even when a pass throws.
struct PassRangeReset {
  std::uint32_t& begin;
  std::uint32_t& end;
  ~PassRangeReset() { begin = end = 0; }
};

}  // namespace

void ComputeKernel::run_in_passes(const Args& args, std::size_t items, std::uint64_t loop_length,
                                  std::uint64_t pass_length) {
  const std::string& name = label();
  check_arrays_carry_state(args, name);
  if (loop_length == 0)
    throw ArgumentError(fmt::format("{}: run_in_passes of an empty loop", name));
  if (loop_length > 0xFFFFFFFFull) {
    throw LimitError(
        fmt::format("{}: a loop of {} iterations exceeds 2^32 - 1 (gpgpu_pass_end is a uint)", name,
                    loop_length));
  }
  if (pass_length == 0) {
    const std::int64_t cap = state_->info.max_loop_iterations;
    pass_length =
        cap == 0
            ? loop_length
            : static_cast<std::uint64_t>(std::max<std::int64_t>(cap - other_loop_iterations, 1));
  }
  PassRangeReset reset{pass_begin_, pass_end_};
  for (std::uint64_t begin = 0; begin < loop_length; begin += pass_length) {
    pass_begin_ = static_cast<std::uint32_t>(begin);
    pass_end_ = static_cast<std::uint32_t>(std::min(loop_length, begin + pass_length));
    run(args, items);
  }
}

}  // namespace gpgpu
