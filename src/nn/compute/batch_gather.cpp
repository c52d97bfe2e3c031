#include "batch_gather.hpp"

#include "kernels.hpp"
#include "runners.hpp"

namespace gpgpu::nn::detail {

namespace {

// One kernel binds pixels, labels, order, the input and the batch's labels: five storage
// buffers, one more than OpenGL ES 3.1 guarantees.
bool one_kernel_fits(const DeviceInfo& i) {
  return i.max_compute_shader_storage_blocks >= 5 && i.max_combined_shader_storage_blocks >= 5 &&
         i.max_shader_storage_buffer_bindings >= 5;
}

Defines with_labels(Defines d, bool labels) {
  d.emplace_back("LABELS", labels ? "1" : "0");
  return d;
}

}  // namespace

std::vector<KernelSource> batch_gather_sources(const DeviceInfo& info, const Defines& shape,
                                               const std::string& label) {
  const bool one = one_kernel_fits(info);
  std::vector<KernelSource> sources{
      nn_kernel_source(kernels::gather, with_labels(shape, one), label)};
  if (!one) sources.push_back(nn_kernel_source(kernels::gather_labels, {}, label + " labels"));
  return sources;
}

BatchGather::BatchGather(const Context& context, const Defines& shape, const std::string& label)
    : BatchGather(context, batch_gather_sources(context.info(), shape, label)) {}

BatchGather::BatchGather(const Context& context, const std::vector<KernelSource>& sources)
    : pixels_(compile(context, sources[0])) {
  if (sources.size() > 1) labels_.emplace(compile(context, sources[1]));
}

void BatchGather::run(const GatherSources& from, const GatherValues& values, Buffer& x,
                      Buffer& batch_labels, std::size_t elements, std::size_t samples) {
  Args args{{"pixels", from.pixels},
            {"order", from.order},
            {"x", x},
            {"first", values.first},
            {"valid", values.valid},
            {"mean", values.normalization.mean},
            {"inv_std", 1.0f / values.normalization.stddev}};
  if (values.seed) args.emplace_back("seed", *values.seed);
  if (!labels_) {
    args.emplace_back("labels", from.labels);
    args.emplace_back("batch_labels", batch_labels);
  }
  pixels_.run(args, elements);
  if (labels_) {
    labels_->run({{"labels", from.labels},
                  {"order", from.order},
                  {"batch_labels", batch_labels},
                  {"first", values.first},
                  {"valid", values.valid}},
                 samples);
  }
}

}  // namespace gpgpu::nn::detail
