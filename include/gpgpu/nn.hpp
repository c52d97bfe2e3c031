// gpgpu/nn.hpp — convolutional networks trained and run on GPU shaders (or llvmpipe).
//
//   #include <gpgpu/nn.hpp>
//   namespace nn = gpgpu::nn;
//   gpgpu::Context ctx;
//   auto train = nn::load_idx_dataset(nn::default_data_dir(), "train");   // Fashion-MNIST
//   auto test = nn::load_idx_dataset(nn::default_data_dir(), "t10k");
//   nn::Sequential model(ctx, train.sample_shape());
//   model.add(nn::Conv2D{.filters = 32, .kernel = 5, .padding = 2}).add(nn::ReLU{})
//        .add(nn::MaxPool2D{}).add(nn::Flatten{}).add(nn::Dense{.units = 10});
//   model.set_normalization(nn::normalization_of(train));
//   nn::DeviceDataset device_train(ctx, train), device_test(ctx, test);
//   nn::Trainer trainer(model, device_train, {.batch = 64, .optimizer = nn::Adam{}});
//   trainer.run_epoch();
//   std::printf("%.2f%%\n", 100 * nn::evaluate(model, device_test).accuracy());
//   nn::save_model(model, "model");
//
// tensor.hpp         Shape, Tensor (device-resident float32, NCHW)
// layers.hpp         Dense, Conv2D, MaxPool2D, AvgPool2D, GlobalAvgPool2D, ReLU, LeakyReLU,
//                    Clip, Sigmoid, Tanh, Flatten, Dropout, BatchNorm, Softmax; shapes and
//                    parameters; initialisation
// model.hpp          Sequential: forward, backward, parameters; the two backends
// optimizers.hpp     SGD with momentum, Adam, weight decay, learning-rate schedules
// loss.hpp           softmax cross-entropy, loss statistics, evaluations
// data.hpp           IDX files (MNIST format, gzip), normalisation, shuffling,
//                    augmentation, DeviceDataset
// train.hpp          Trainer (one dispatch chain per step), evaluate
// arrays.hpp         ArrayTrainer, predict, evaluate over float32 samples in host memory
// serialization.hpp  save/load (.npy directory or .npz), networks from JSON
// nets.hpp           built-in networks (small, lenet, cnn, cnn-bn, gpgpujs) and recipes
#pragma once

#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"

#include "gpgpu/nn/arrays.hpp"
#include "gpgpu/nn/data.hpp"
#include "gpgpu/nn/layers.hpp"
#include "gpgpu/nn/loss.hpp"
#include "gpgpu/nn/model.hpp"
#include "gpgpu/nn/nets.hpp"
#include "gpgpu/nn/optimizers.hpp"
#include "gpgpu/nn/serialization.hpp"
#include "gpgpu/nn/team.hpp"
#include "gpgpu/nn/tensor.hpp"
#include "gpgpu/nn/train.hpp"
