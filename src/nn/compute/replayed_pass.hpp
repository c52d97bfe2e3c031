// Internal: a compute plan's forward or backward pass replayed from a recording
// (gpgpu/sequence.hpp). The first call runs the pass as it is (GEMM autotuning and kernels
// made on first use happen there); the second records it and replays the recording; later
// calls only replay. A pass whose recorded Buffers were replaced since is recorded again.
// The replays issue the dispatches the runs would, with the same programs, arguments and
// sizes, so the results are the same bits.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "gpgpu/context.hpp"
#include "gpgpu/sequence.hpp"

namespace gpgpu::nn::detail {

class ReplayedPass {
 public:
  ReplayedPass(const Context& context, std::string label) : sequence_(context, std::move(label)) {}

  // Runs `pass` (code that runs compute kernels on Buffers only), or replays its recording.
  void run(const std::function<void()>& pass) {
    if (calls_++ == 0) return pass();
    if (sequence_.empty() || !sequence_.replayable()) {
      sequence_.clear();
      sequence_.capture(pass);
    }
    sequence_.replay();
  }

 private:
  Sequence sequence_;
  std::size_t calls_ = 0;
};

}  // namespace gpgpu::nn::detail
