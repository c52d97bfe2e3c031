// train_cnn — builds a small convolutional network and trains it on Fashion-MNIST with
// gpgpu::nn, entirely in GPU shaders (or llvmpipe's): 2000 training images, one epoch,
// then the accuracy on 1000 test images. Arguments: [training images] [epochs].
#include <cstdio>
#include <cstdlib>

#include <gpgpu/nn.hpp>

namespace nn = gpgpu::nn;

int main(int argc, char** argv) {
  try {
    gpgpu::Context ctx;
    const auto dir = nn::default_data_dir();  // Debian's dataset-fashion-mnist
    const auto train =
        nn::load_idx_dataset(dir, "train").first(argc > 1 ? std::atoi(argv[1]) : 2000);
    const auto test = nn::load_idx_dataset(dir, "t10k").first(1000);
    std::printf("device: %s; %zu training images\n", ctx.info().renderer.c_str(), train.count);

    nn::Sequential model(ctx, train.sample_shape());  // (1, 28, 28)
    model.add(nn::Conv2D{.filters = 8, .kernel = 5, .padding = 2})
        .add(nn::ReLU{})
        .add(nn::MaxPool2D{});
    model.add(nn::Conv2D{.filters = 16, .kernel = 5, .padding = 2})
        .add(nn::ReLU{})
        .add(nn::MaxPool2D{});
    model.add(nn::Flatten{}).add(nn::Dense{.units = 10});
    model.set_normalization(nn::normalization_of(train));
    model.initialize(42);
    std::printf("%s", model.summary().c_str());

    nn::DeviceDataset device_train(ctx, train), device_test(ctx, test);  // uploaded once
    nn::TrainOptions options;
    options.batch = 32;
    options.optimizer = nn::Adam{.learning_rate = 2e-3f};
    nn::Trainer trainer(model, device_train, options);
    for (int epoch = 0; epoch < (argc > 2 ? std::atoi(argv[2]) : 1); ++epoch) {
      const auto r = trainer.run_epoch();
      const auto eval = nn::evaluate(model, device_test);
      std::printf("epoch %d: train loss %.4f, test accuracy %.2f%% (%.1f s)\n", epoch + 1,
                  r.stats.mean_loss(), 100 * eval.accuracy(), r.seconds);
    }
    nn::save_model(model, "fashion_cnn");
    std::printf("saved fashion_cnn/ (model.json and one .npy per parameter)\n");
    return 0;
  } catch (const gpgpu::Error& e) {
    std::fprintf(stderr, "gpgpu error: %s\n", e.what());
    return 1;
  }
}
