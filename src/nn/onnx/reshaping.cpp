// The handlers of the operators that only rearrange the activation: Flatten, Reshape and
// Squeeze to (batch, features), and Transpose where tf2onnx converts between NHWC and NCHW
// (graph_reader.hpp).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpgpu/error.hpp"
#include "graph_reader.hpp"

namespace gpgpu::nn::onnx_detail {

namespace {

// The activation becomes (batch, features): a Flatten layer for images, nothing for vectors.
void to_features(GraphReader& r, const Node& node) {
  if (r.shape().rank() == 1) return r.pass_through(node);
  if (r.channels_last()) {
    // The values stay in (H, W, C) order; the dense layer that takes them is permuted to it.
    const Shape chw = r.shape();
    r.add_layer(node, Flatten{});
    r.set_channels_last(chw);
    return;
  }
  r.add_layer(node, Flatten{});
}

void flatten(GraphReader& r, const Node& node, Attributes& a) {
  const auto axis = a.integer("axis", 1);
  if (axis != 1) {
    r.refuse(node, fmt::format("attribute axis = {}; gpgpu flattens (batch, ...) to (batch, "
                               "features), axis 1",
                               axis));
  }
  to_features(r, node);
}

std::string target_text(const Constant& c) {
  std::vector<std::string> parts;
  for (double v : c.values) parts.push_back(std::isnan(v) ? "batch" : fmt::format("{}", v));
  return fmt::format("({})", fmt::join(parts, ", "));
}

// Reshape to (batch, features) — the batch given as the batch itself (a shape computation),
// 0 (copy), -1 (infer) or the batch the file declares — is a flatten; a reshape to the
// activation's own extents is nothing. Other targets are refused.
void reshape(GraphReader& r, const Node& node, Attributes& a) {
  const Constant& target = r.constant_input(node, 1, "target shape");
  if (a.integer("allowzero", 0) != 0) r.refuse(node, "attribute allowzero = 1");
  const auto features = static_cast<double>(r.shape().size());
  const auto& t = target.values;
  const auto batch_like = [&](double v) {
    return std::isnan(v) || v == 0 || v == -1 ||
           (r.declared_batch() > 0 && v == static_cast<double>(r.declared_batch()));
  };
  if (t.size() == 2 && batch_like(t[0]) && (t[1] == features || (t[1] == -1 && t[0] != -1))) {
    return to_features(r, node);
  }
  std::vector<double> same{t.empty() ? 0.0 : t[0]};
  for (auto d : r.shape().dims()) same.push_back(static_cast<double>(d));
  if (!r.channels_last() && !t.empty() && batch_like(t[0]) && t == same)
    return r.pass_through(node);
  if (!r.channels_last() && t.size() == same.size() && !t.empty() && batch_like(t[0]) &&
      std::equal(t.begin() + 1, t.end(), same.begin() + 1)) {
    return r.pass_through(node);
  }
  r.refuse(node, fmt::format("a reshape of (batch, {}) to {}; gpgpu reshapes only to (batch, "
                             "features)",
                             fmt::join(r.shape().dims(), ", "), target_text(target)));
}

// Squeeze of the 1-extents of (batch, C, 1, 1) (after a global pool) to (batch, C).
void squeeze(GraphReader& r, const Node& node, Attributes& a) {
  std::vector<std::int64_t> axes;
  if (r.opset() < 13) {
    axes = a.integers("axes", {});
  } else if (!node.input(1).empty()) {
    const auto& c = r.constant_input(node, 1, "axes");
    for (double v : c.values) axes.push_back(whole(v, node.where + " axes"));
  }
  const Shape& s = r.shape();
  for (auto& axis : axes) axis = axis < 0 ? axis + static_cast<std::int64_t>(s.rank()) + 1 : axis;
  std::sort(axes.begin(), axes.end());
  const bool spatial_ones = s.rank() == 3 && s[1] == 1 && s[2] == 1 &&
                            (axes.empty() || axes == std::vector<std::int64_t>{2, 3});
  if (!spatial_ones || r.channels_last()) {
    r.refuse(node, fmt::format("a squeeze of axes [{}] of (batch, {}); gpgpu squeezes only (batch, "
                               "C, 1, 1) to (batch, C)",
                               fmt::join(axes, ", "), fmt::join(s.dims(), ", ")));
  }
  to_features(r, node);
}

// Transpose (0, 3, 1, 2) of an NHWC graph input (tf2onnx's first node): the model takes
// NCHW. Transpose (0, 2, 3, 1) of an image: channels last until a dense layer (tf2onnx's
// flatten before Keras' Dense); (0, 3, 1, 2) again undoes it. Identity permutations pass.
void transpose(GraphReader& r, const Node& node, Attributes& a) {
  const auto rank = static_cast<std::int64_t>(r.shape().rank()) + 1;
  std::vector<std::int64_t> identity(static_cast<std::size_t>(rank));
  for (std::int64_t i = 0; i < rank; ++i) identity[static_cast<std::size_t>(i)] = i;
  std::vector<std::int64_t> reversed(identity.rbegin(), identity.rend());
  const auto perm = a.integers("perm", reversed);
  if (!std::is_permutation(perm.begin(), perm.end(), identity.begin(), identity.end())) {
    throw FormatError(fmt::format("{}: perm [{}] is not a permutation of the {} axes of its input",
                                  node.where, fmt::join(perm, ", "), rank));
  }
  const std::vector<std::int64_t> to_nchw{0, 3, 1, 2}, to_nhwc{0, 2, 3, 1};
  if (perm == identity) return r.pass_through(node);
  if (perm == to_nchw && r.channels_last()) {
    r.set_channels_last(std::nullopt);
    return r.pass_through(node);
  }
  if (perm == to_nchw && r.at_input()) return r.transpose_input(node);
  if (perm == to_nhwc && !r.channels_last()) {
    r.set_channels_last(r.shape());
    return r.pass_through(node);
  }
  r.refuse(node, fmt::format("a transpose by [{}] of (batch, {}); gpgpu transposes only an NHWC "
                             "input to NCHW, and NCHW to NHWC before a flatten for a dense layer",
                             fmt::join(perm, ", "), fmt::join(r.shape().dims(), ", ")));
}

}  // namespace

void map_reshaping_operators(std::map<std::string, Handler>& table) {
  table["Flatten"] = flatten;
  table["Reshape"] = reshape;
  table["Squeeze"] = squeeze;
  table["Transpose"] = transpose;
}

}  // namespace gpgpu::nn::onnx_detail
