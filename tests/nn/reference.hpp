// A float64 CPU reference of every gpgpu::nn layer, forward and backward, that also
// carries for each value a bound on how far the device's float32 result may lie from it.
//
// How the bounds are derived (eps = 2^-24, the float32 unit roundoff):
//  - a sum of K products computed in float32 in any order (blocked, split, fused or not)
//    errs by at most gamma = (K + 2) eps times the sum of the absolute terms (Higham's
//    bound gamma_K, plus one rounding for a bias add and one for a product with a factor);
//  - an error e_in of an input reaches the output through the layer's local Lipschitz
//    factor: sum_j |w_j| e_j for linear layers, e for ReLU and max pooling (1-Lipschitz),
//    max sigma' = 1/4 for the sigmoid, 1 for tanh;
//  - exp, as GLSL ES 3.2 specifies for highp, errs by at most (3 + 2|x|) ulp; 1/sqrt by 2 ulp;
//    the sigmoid and tanh bounds below follow from that by the derivative of 1/(1 + e) and
//    (1 - e)/(1 + e) with respect to e (comments at each);
//  - where a branch depends on a value within its error bound of the branch point (a ReLU
//    input near 0, two near-equal maxima in a pooling window), both branches are allowed:
//    the bound grows by the difference they make.
// These are worst-case bounds: a test that compares against them cannot fail from rounding
// alone, and any wrong index, missed term or wrong formula exceeds them by orders of
// magnitude on random data.
#pragma once

#include <cstddef>
#include <vector>

#include "gpgpu/nn/layers.hpp"
#include "gpgpu/nn/model.hpp"

namespace nnref {

using gpgpu::nn::Layer;
using gpgpu::nn::Shape;

constexpr double eps = 1.0 / (1 << 24);

struct Array {
  std::vector<double> v;  // the float64 value
  std::vector<double> e;  // bound on |float32 device result - v|
  static Array exact(const std::vector<float>& values);
  std::size_t size() const { return v.size(); }
};

struct ForwardState {
  Array y;
  std::vector<double> mean, inv_std;  // batch norm (training): per channel
  std::vector<double> mean_err, inv_std_err;
  std::vector<double> running_mean, running_var;  // batch norm: the updated running statistics
};

struct BackwardResult {
  Array dx;
  Array dparams;  // in the layer's parameter_specs order, concatenated
};

// One layer over a batch. `params` are the layer's parameters concatenated in spec order.
ForwardState forward(const Layer& layer, const Shape& in, std::size_t batch, const Array& x,
                     const std::vector<double>& params, bool train);
BackwardResult backward(const Layer& layer, const Shape& in, std::size_t batch, const Array& x,
                        const ForwardState& fwd, const Array& dy, const std::vector<double>& params,
                        bool train);

// A whole Sequential, parameters taken from the model's flat vector.
struct NetTrace {
  std::vector<Array> inputs;  // inputs[i] is the input of layer i; the last entry the output
  std::vector<ForwardState> states;
};
std::vector<double> layer_params(const gpgpu::nn::Sequential& model, std::size_t layer,
                                 const std::vector<float>& flat);
NetTrace net_forward(const gpgpu::nn::Sequential& model, std::size_t batch, const Array& x,
                     const std::vector<float>& flat, bool train);
struct NetGradients {
  Array dx;
  Array flat;  // gradients laid out like the model's flat parameters (zero for frozen ones)
};
NetGradients net_backward(const gpgpu::nn::Sequential& model, std::size_t batch,
                          const NetTrace& trace, const Array& dy, const std::vector<float>& flat,
                          bool train);

// Mean softmax cross-entropy over the batch and its gradient (divided by the batch).
double mean_cross_entropy(const std::vector<double>& logits, const std::vector<int>& labels,
                          std::size_t classes, std::vector<double>* gradient);

}  // namespace nnref
