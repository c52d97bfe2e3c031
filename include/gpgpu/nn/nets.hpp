// gpgpu/nn/nets.hpp — ready-made networks and the recipes they are trained with.
//
//   auto recipe = gpgpu::nn::builtin_net(ctx, "cnn", {1, 28, 28}, 10);
//   gpgpu::nn::Trainer trainer(recipe.model, train, recipe.options);
//
//   name     layers (per sample, 28x28 input)                               recipe
//   small    conv 8 5x5 p2 - relu - maxpool 2 - conv 16 5x5 p2 - relu -     Adam 2e-3, batch 32
//            maxpool 2 - dense 10 (for llvmpipe: ~5 MFLOP per training image)
//   lenet    conv 6 5x5 p2 - relu - maxpool - conv 16 5x5 - relu - maxpool - Adam 1e-3, batch 64
//            dense 120 - relu - dense 84 - relu - dense 10
//   cnn      conv 32 5x5 p2 - relu - maxpool - conv 64 5x5 p2 - relu -     Adam 1e-3, cosine,
//            maxpool - dense 128 - relu - dense 10                          batch 64, 15 epochs
//            (the plain 2-conv net of TensorFlow's tutorial and of bench/nn/torch_cnn.py)
//   cnn-bn   cnn with BatchNorm after each conv and the dense 128, dropout   Adam 2e-3, cosine,
//            0.3 before the last layer; trained with flips and shifts of 2   batch 64, 30 epochs
//   gpgpujs  the network of gpgpu.js's MNIST page (Nielsen's): conv 20 5x5 - SGD 0.03, batch 10
//            relu - maxpool - conv 40 5x5 - relu - maxpool - dense 1000 -
//            relu - dropout 0.5 - dense 1000 - relu - dropout 0.5 - dense 10
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "gpgpu/context.hpp"
#include "gpgpu/nn/model.hpp"
#include "gpgpu/nn/train.hpp"

namespace gpgpu::nn {

// A built-in network and how to train it.
struct NetRecipe {
  Sequential model;      // the network
  TrainOptions options;  // its training recipe (batch, optimizer, schedule, augmentation)
};

// The names builtin_net accepts.
std::vector<std::string> builtin_net_names();
// A built-in network for samples of shape `input` and `classes` outputs, with its training
// recipe. Throws ArgumentError listing the names for an unknown one.
NetRecipe builtin_net(const Context& context, std::string_view name, const Shape& input,
                      std::size_t classes);

}  // namespace gpgpu::nn
