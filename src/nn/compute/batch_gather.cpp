#include "batch_gather.hpp"

#include "kernels.hpp"
#include "runners.hpp"

namespace gpgpu::nn::detail {

namespace {

// One kernel binds pixels, labels, order, the input and the batch's labels: five storage
// buffers, one more than OpenGL ES 3.1 guarantees.
bool one_kernel_fits(const Context& context) {
  const auto& i = context.info();
  return i.max_compute_shader_storage_blocks >= 5 && i.max_combined_shader_storage_blocks >= 5 &&
         i.max_shader_storage_buffer_bindings >= 5;
}

Defines with_labels(Defines d, bool labels) {
  d.emplace_back("LABELS", labels ? "1" : "0");
  return d;
}

}  // namespace

BatchGather::BatchGather(const Context& context, Defines shape, const std::string& label)
    : pixels_(make_nn_kernel(context, kernels::gather, with_labels(shape, one_kernel_fits(context)),
                             label)) {
  if (!one_kernel_fits(context)) {
    labels_.emplace(make_nn_kernel(context, kernels::gather_labels, {}, label + " labels"));
  }
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
