// Internal: a batch of samples gathered from a DeviceDataset into the network's input (with
// normalisation and augmentation) and their labels: one kernel over five storage buffers,
// or two (pixels, then labels) on devices that bind fewer.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/compute_kernel.hpp"
#include "gpgpu/defines.hpp"
#include "gpgpu/nn/data.hpp"

namespace gpgpu::nn::detail {

struct GatherSources {
  const Buffer& pixels;  // the dataset's packed bytes
  const Buffer& labels;  // the dataset's labels
  const Buffer& order;   // sample indices, from `first`
};

struct GatherValues {
  std::uint32_t first = 0, valid = 0;
  Normalization normalization;
  std::optional<std::uint32_t> seed;  // with augmentation
};

// The kernels of a gather on a device: the one kernel, or the pixels' and the labels'.
// `shape` defines C, H, W, FLIP, SHIFT.
std::vector<KernelSource> batch_gather_sources(const DeviceInfo& info, const Defines& shape,
                                               const std::string& label);

class BatchGather {
 public:
  // `shape` defines C, H, W, FLIP, SHIFT.
  BatchGather(const Context& context, const Defines& shape, const std::string& label);
  // x[i] for i < elements, batch_labels[n] for n < samples.
  void run(const GatherSources& from, const GatherValues& values, Buffer& x, Buffer& batch_labels,
           std::size_t elements, std::size_t samples);

 private:
  BatchGather(const Context& context, const std::vector<KernelSource>& sources);
  ComputeKernel pixels_;
  std::optional<ComputeKernel> labels_;  // when the labels need a kernel of their own
};

}  // namespace gpgpu::nn::detail
