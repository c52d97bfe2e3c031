// The built-in networks and their training recipes (nets.hpp has the table).
#include "gpgpu/nn/nets.hpp"

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::nn {

namespace {

Sequential conv_net(const Context& ctx, const Shape& input, std::vector<Layer> layers) {
  Sequential model(ctx, input);
  for (auto& l : layers) model.add(std::move(l));
  return model;
}

}  // namespace

std::vector<std::string> builtin_net_names() {
  return {"small", "lenet", "cnn", "cnn-bn", "gpgpujs"};
}

NetRecipe builtin_net(const Context& ctx, std::string_view name, const Shape& input,
                      std::size_t classes) {
  if (input.rank() != 3) {
    throw ArgumentError(
        fmt::format("builtin_net: the networks take images (C, H, W); got {}", input.to_string()));
  }
  TrainOptions o;
  if (name == "small") {
    o.batch = 32;
    o.optimizer = Adam{.learning_rate = 2e-3f};
    o.epochs = 5;
    return {conv_net(ctx, input,
                     {Conv2D{8, 5, 1, 2}, ReLU{}, MaxPool2D{2}, Conv2D{16, 5, 1, 2}, ReLU{},
                      MaxPool2D{2}, Flatten{}, Dense{classes}}),
            o};
  }
  if (name == "lenet") {
    o.batch = 64;
    o.optimizer = Adam{.learning_rate = 1e-3f};
    o.epochs = 10;
    return {
        conv_net(ctx, input,
                 {Conv2D{6, 5, 1, 2}, ReLU{}, MaxPool2D{2}, Conv2D{16, 5, 1, 0}, ReLU{},
                  MaxPool2D{2}, Flatten{}, Dense{120}, ReLU{}, Dense{84}, ReLU{}, Dense{classes}}),
        o};
  }
  if (name == "cnn") {
    o.batch = 64;
    o.optimizer = Adam{.learning_rate = 1e-3f};
    o.schedule = Schedule::Cosine;
    o.epochs = 15;
    return {conv_net(ctx, input,
                     {Conv2D{32, 5, 1, 2}, ReLU{}, MaxPool2D{2}, Conv2D{64, 5, 1, 2}, ReLU{},
                      MaxPool2D{2}, Flatten{}, Dense{128}, ReLU{}, Dense{classes}}),
            o};
  }
  if (name == "cnn-bn") {
    o.batch = 64;
    o.optimizer = Adam{.learning_rate = 2e-3f};
    o.schedule = Schedule::Cosine;
    o.epochs = 30;
    o.augmentation = {.flip = true, .shift = 2};
    return {conv_net(ctx, input,
                     {Conv2D{32, 5, 1, 2}, BatchNorm{}, ReLU{}, MaxPool2D{2}, Conv2D{64, 5, 1, 2},
                      BatchNorm{}, ReLU{}, MaxPool2D{2}, Flatten{}, Dense{128}, BatchNorm{}, ReLU{},
                      Dropout{0.3f}, Dense{classes}}),
            o};
  }
  if (name == "gpgpujs") {
    o.batch = 10;
    o.optimizer = SGD{.learning_rate = 0.03f};
    o.epochs = 10;
    return {conv_net(ctx, input,
                     {Conv2D{20, 5, 1, 0}, ReLU{}, MaxPool2D{2}, Conv2D{40, 5, 1, 0}, ReLU{},
                      MaxPool2D{2}, Flatten{}, Dense{1000}, ReLU{}, Dropout{0.5f}, Dense{1000},
                      ReLU{}, Dropout{0.5f}, Dense{classes}}),
            o};
  }
  throw ArgumentError(fmt::format("unknown network '{}'; the built-in ones are {}", name,
                                  fmt::join(builtin_net_names(), ", ")));
}

}  // namespace gpgpu::nn
