// Computations on constants (graph_reader.hpp's evaluate): what exporters write to build a
// reshape's target (PyTorch's x.view(x.size(0), -1) becomes Shape, Gather, Unsqueeze, Concat
// and Reshape) or to prepare a weight (Identity, Cast, Transpose, Reshape, arithmetic).
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "graph_reader.hpp"

namespace gpgpu::nn::onnx_detail {

namespace {

[[noreturn]] void malformed(const Node& node, const std::string& what) {
  throw FormatError(fmt::format("{}: {}", node.where, what));
}

const Constant& input(const Node& node, const std::vector<const Constant*>& in, std::size_t i) {
  if (i >= in.size() || in[i] == nullptr) malformed(node, fmt::format("input {} is missing", i));
  return *in[i];
}

std::int64_t normalised_axis(const Node& node, std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r)
    malformed(node, fmt::format("axis {} of a rank-{} value", axis, rank));
  return axis < 0 ? axis + r : axis;
}

// Axes from the attribute (before `input_from`) or the second input.
std::vector<std::int64_t> axes_of(const Node& node, Attributes& a,
                                  const std::vector<const Constant*>& in, int opset,
                                  int input_from) {
  if (opset < input_from) return a.integers("axes", {});
  if (in.size() < 2 || in[1] == nullptr) return {};
  std::vector<std::int64_t> axes;
  for (double v : in[1]->values) axes.push_back(whole(v, node.where + " axes"));
  return axes;
}

Constant from_attribute(const Node& node, Attributes& a) {
  if (const auto* t = a.tensor("value")) return decode_tensor(*t, node.where + " value");
  if (a.has("value_float")) return {{}, {a.number("value_float", 0)}, false};
  if (a.has("value_floats")) {
    const auto v = a.numbers("value_floats");
    return {{static_cast<std::int64_t>(v.size())}, {v.begin(), v.end()}, false};
  }
  if (a.has("value_int")) return {{}, {static_cast<double>(a.integer("value_int", 0))}, true};
  if (a.has("value_ints")) {
    const auto v = a.integers("value_ints", {});
    return {{static_cast<std::int64_t>(v.size())}, {v.begin(), v.end()}, true};
  }
  throw UnsupportedError(node.where + ": a Constant without a tensor, float or int value");
}

Constant reshaped(const Node& node, const Constant& data, const Constant& target) {
  std::vector<std::int64_t> dims;
  std::int64_t infer = -1;
  std::size_t known = 1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    const double v = target.values[i];
    if (v == -1 && infer < 0) {
      infer = static_cast<std::int64_t>(i);
      dims.push_back(1);
      continue;
    }
    if (v == 0 && i < data.dims.size()) {
      dims.push_back(data.dims[i]);
    } else if (v >= 1 && v == std::floor(v) && v < 2147483648.0) {
      dims.push_back(static_cast<std::int64_t>(v));
    } else {
      malformed(node, fmt::format("target extent {} of a constant", v));
    }
    known =
        dims.back() == 0 || known <= (std::size_t{1} << 31) / static_cast<std::size_t>(dims.back())
            ? known * static_cast<std::size_t>(dims.back())
            : std::size_t{1} << 32;  // more than any constant holds: the check below fails
  }
  if (infer >= 0 && known > 0)
    dims[static_cast<std::size_t>(infer)] = static_cast<std::int64_t>(data.size() / known);
  if (element_count(dims, node.where) != data.size()) {
    malformed(node, fmt::format("a reshape of {} elements to {} of another count", data.size(),
                                Constant{dims, {}, false}.dims_text()));
  }
  return {dims, data.values, data.integer};
}

Constant unsqueezed(const Node& node, const Constant& data, std::vector<std::int64_t> axes) {
  const std::size_t rank = data.dims.size() + axes.size();
  std::set<std::int64_t> at;
  for (auto axis : axes) at.insert(normalised_axis(node, axis, rank));
  std::vector<std::int64_t> dims;
  std::size_t next = 0;
  for (std::size_t i = 0; i < rank; ++i) {
    if (at.count(static_cast<std::int64_t>(i))) {
      dims.push_back(1);
    } else if (next < data.dims.size()) {
      dims.push_back(data.dims[next++]);
    } else {
      malformed(node, "repeated axes");
    }
  }
  return {dims, data.values, data.integer};
}

Constant squeezed(const Node& node, const Constant& data, const std::vector<std::int64_t>& axes) {
  std::set<std::int64_t> at;
  for (auto axis : axes) at.insert(normalised_axis(node, axis, data.dims.size()));
  std::vector<std::int64_t> dims;
  for (std::size_t i = 0; i < data.dims.size(); ++i) {
    const bool drop = axes.empty() ? data.dims[i] == 1 : at.count(static_cast<std::int64_t>(i)) > 0;
    if (drop && data.dims[i] != 1) malformed(node, "a squeeze of an extent other than 1");
    if (!drop) dims.push_back(data.dims[i]);
  }
  return {dims, data.values, data.integer};
}

// Concat of vectors (and scalars of one element) along their one axis.
Constant concatenated(const Node& node, Attributes& a, const std::vector<const Constant*>& in) {
  const auto axis = a.integer("axis", 0);
  Constant out{{0}, {}, true};
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Constant& c = input(node, in, i);
    if (c.dims.size() != 1 || (axis != 0 && axis != -1)) {
      throw UnsupportedError(node.where + ": a Concat of constants other than vectors");
    }
    out.values.insert(out.values.end(), c.values.begin(), c.values.end());
    out.integer = out.integer && c.integer;
  }
  out.dims = {static_cast<std::int64_t>(out.values.size())};
  return out;
}

// Gather along axis 0.
Constant gathered(const Node& node, Attributes& a, const Constant& data, const Constant& indices) {
  if (a.integer("axis", 0) != 0 || data.dims.empty()) {
    throw UnsupportedError(node.where + ": a Gather of constants along an axis other than 0");
  }
  const std::size_t rows = static_cast<std::size_t>(data.dims[0]);
  const std::size_t row = rows == 0 ? 0 : data.size() / rows;
  Constant out{indices.dims, {}, data.integer};
  out.dims.insert(out.dims.end(), data.dims.begin() + 1, data.dims.end());
  for (double index : indices.values) {
    const double wrapped = index < 0 ? index + static_cast<double>(rows) : index;
    if (!(wrapped >= 0 && wrapped < static_cast<double>(rows))) {
      malformed(node, fmt::format("index {} of {} rows", index, rows));
    }
    const auto i = static_cast<std::int64_t>(wrapped);
    const auto first =
        data.values.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * row);
    out.values.insert(out.values.end(), first, first + static_cast<std::ptrdiff_t>(row));
  }
  return out;
}

Constant transposed(const Node& node, Attributes& a, const Constant& data) {
  const std::size_t rank = data.dims.size();
  std::vector<std::int64_t> perm;
  for (std::size_t i = rank; i-- > 0;) perm.push_back(static_cast<std::int64_t>(i));
  perm = a.integers("perm", perm);
  std::vector<bool> seen(rank, false);
  for (auto p : perm) {
    if (p < 0 || p >= static_cast<std::int64_t>(rank) || seen[static_cast<std::size_t>(p)] ||
        perm.size() != rank) {
      malformed(node, "perm is not a permutation of the axes");
    }
    seen[static_cast<std::size_t>(p)] = true;
  }
  Constant out{std::vector<std::int64_t>(rank), std::vector<double>(data.size()), data.integer};
  std::vector<std::size_t> stride(rank, 1);
  for (std::size_t i = rank; i-- > 1;)
    stride[i - 1] = stride[i] * static_cast<std::size_t>(data.dims[i]);
  for (std::size_t i = 0; i < rank; ++i) out.dims[i] = data.dims[static_cast<std::size_t>(perm[i])];
  std::vector<std::size_t> index(rank, 0);
  for (std::size_t o = 0; o < out.size(); ++o) {
    std::size_t from = 0;
    for (std::size_t i = 0; i < rank; ++i)
      from += index[i] * stride[static_cast<std::size_t>(perm[i])];
    out.values[o] = data.values[from];
    for (std::size_t i = rank; i-- > 0;) {
      if (++index[i] < static_cast<std::size_t>(out.dims[i])) break;
      index[i] = 0;
    }
  }
  return out;
}

// Element-wise arithmetic of constants of the same extents, or with a one-element operand.
Constant arithmetic(const Node& node, const Constant& x, const Constant& y) {
  if (x.dims != y.dims && !x.scalar_like() && !y.scalar_like()) {
    throw UnsupportedError(
        fmt::format("{}: {} of constants {} and {} (gpgpu broadcasts only "
                    "single values here)",
                    node.where, node.op(), x.dims_text(), y.dims_text()));
  }
  const Constant& shape = x.size() >= y.size() ? x : y;
  Constant out{shape.dims, std::vector<double>(shape.size()), x.integer && y.integer};
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double a = x.values[x.scalar_like() ? 0 : i], b = y.values[y.scalar_like() ? 0 : i];
    const std::string& op = node.op();
    double v = op == "Add" ? a + b : op == "Sub" ? a - b : op == "Mul" ? a * b : a / b;
    if (out.integer && op == "Div") v = std::trunc(v);
    out.values[i] = v;
  }
  return out;
}

Constant unary(const Node& node, const Constant& x) {
  Constant out = x;
  for (auto& v : out.values) v = node.op() == "Neg" ? -v : std::sqrt(v);
  return out;
}

Constant cast(Attributes& a, const Constant& x) {
  Constant out = x;
  const auto to = a.integer("to", ::onnx::TensorProto::FLOAT);
  out.integer = to != ::onnx::TensorProto::FLOAT && to != ::onnx::TensorProto::DOUBLE &&
                to != ::onnx::TensorProto::FLOAT16;
  if (out.integer) {
    for (auto& v : out.values) v = std::trunc(v);
  }
  return out;
}

const std::set<std::string>& evaluated() {
  static const std::set<std::string> ops{"Constant", "Identity", "Cast",   "Reshape",   "Unsqueeze",
                                         "Squeeze",  "Concat",   "Gather", "Transpose", "Add",
                                         "Sub",      "Mul",      "Div",    "Neg",       "Sqrt"};
  return ops;
}

}  // namespace

bool evaluates(const std::string& op) {
  return evaluated().count(op) > 0;
}

std::optional<Constant> evaluate(const Node& node, Attributes& a,
                                 const std::vector<const Constant*>& in, int opset) {
  const std::string& op = node.op();
  if (!evaluates(op)) return std::nullopt;
  if (op == "Constant") return from_attribute(node, a);
  if (op == "Concat") return concatenated(node, a, in);
  const Constant& x = input(node, in, 0);
  if (op == "Identity") return x;
  if (op == "Cast") return cast(a, x);
  if (op == "Neg" || op == "Sqrt") return unary(node, x);
  if (op == "Transpose") return transposed(node, a, x);
  if (op == "Reshape") {
    a.ignore("allowzero");
    return reshaped(node, x, input(node, in, 1));
  }
  if (op == "Unsqueeze") return unsqueezed(node, x, axes_of(node, a, in, opset, 13));
  if (op == "Squeeze") return squeezed(node, x, axes_of(node, a, in, opset, 13));
  if (op == "Gather") return gathered(node, a, x, input(node, in, 1));
  return arithmetic(node, x, input(node, in, 1));
}

}  // namespace gpgpu::nn::onnx_detail
