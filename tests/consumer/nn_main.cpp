// A user's program built against an installed gpgpu::nn: a two-layer model, one forward pass.
#include <cstdio>
#include <vector>

#include <gpgpu/nn.hpp>

int main() {
  try {
    gpgpu::Context ctx;
    gpgpu::nn::Sequential model(ctx, {4});
    model.add(gpgpu::nn::Dense{.units = 3}).add(gpgpu::nn::ReLU{});
    model.initialize(1);
    const auto y = model.forward(gpgpu::nn::Tensor::from(ctx, {2, 4}, std::vector<float>(8, 1.0f)));
    std::printf("nn consumer: output %s\n", y.shape().to_string().c_str());
    return y.shape() == gpgpu::nn::Shape{2, 3} ? 0 : 1;
  } catch (const gpgpu::Error& e) {
    std::fprintf(stderr, "gpgpu error: %s\n", e.what());
    return 1;
  }
}
