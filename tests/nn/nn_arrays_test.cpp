// Training, predicting and evaluating from float32 samples in host memory (gpgpu/nn/arrays.hpp),
// on every backend: one SGD step of a dense classifier against its float64 reference, the
// outputs of predict against Sequential::forward, evaluate's numbers against predict's logits,
// the loss falling on a separable problem, and bad input refused by name.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "gpgpu/nn/arrays.hpp"
#include "nn_test_support.hpp"

namespace nn = gpgpu::nn;
using gpgpu::test::eps32;

namespace {

class NnArrays : public ::testing::TestWithParam<nntest::BackendConfig> {
 protected:
  nn::Sequential dense(std::size_t features, std::size_t classes) {
    nn::Sequential m(gpgpu::test::context(), {features});
    m.add(nn::Dense{.units = classes});
    m.set_backend(GetParam().backend, GetParam().options);
    return m;
  }
};

double gamma(std::size_t k) {
  return static_cast<double>(k) * eps32 / (1 - static_cast<double>(k) * eps32);
}

// One epoch of one SGD step (batch = the data) of z = W x + b against float64: W' = W - lr g
// with g = (1/B) sum_n (softmax(z_n) - onehot(y_n)) x_n^T, and b likewise without x.
TEST_P(NnArrays, OneSgdStepOfADenseClassifierMatchesFloat64) {
  const std::size_t F = 7, K = 5, B = 12;
  auto model = dense(F, K);
  const auto w0 = nntest::random_parameters(model);
  model.set_parameter_values(w0);
  const auto x = gpgpu::test::random_floats(B * F);
  const auto y = nntest::random_labels(B, K);
  const double lr = 0.25;
  nn::TrainOptions o;
  o.batch = B;
  o.optimizer = nn::SGD{.learning_rate = static_cast<float>(lr)};
  nn::ArrayTrainer trainer(model, x, y, o);
  const auto epoch = trainer.run_epoch();
  EXPECT_EQ(epoch.steps, 1u);
  const auto w1 = model.parameter_values();  // weight (K, F) then bias (K)

  // The reference, and per entry a bound: float32 logits err by dz_n <= gamma_{F+1} (sum_f
  // |w x| + |b|); softmax moves by at most 2 max dz in each entry; the backward GEMM over B
  // rows adds gamma_B sum |p - y| |x|; the update's product and difference 2 eps32 |w'|.
  std::vector<double> g(K * F + K, 0.0), bound(K * F + K, 0.0);
  double loss = 0;
  for (std::size_t n = 0; n < B; ++n) {
    std::vector<double> z(K);
    double dz = 0;
    for (std::size_t k = 0; k < K; ++k) {
      double s = w0[K * F + k], mag = std::abs(s);
      for (std::size_t f = 0; f < F; ++f) {
        s += double(w0[k * F + f]) * x[n * F + f];
        mag += std::abs(double(w0[k * F + f]) * x[n * F + f]);
      }
      z[k] = s;
      dz = std::max(dz, gamma(F + 1) * mag);
    }
    const double top = *std::max_element(z.begin(), z.end());
    double sum = 0;
    for (const double v : z) sum += std::exp(v - top);
    loss += std::log(sum) - (z[y[n]] - top);
    for (std::size_t k = 0; k < K; ++k) {
      const double d = std::exp(z[k] - top) / sum - (static_cast<int>(k) == y[n]);
      const double e = 2 * dz + gamma(B) * std::abs(d);
      for (std::size_t f = 0; f < F; ++f) {
        g[k * F + f] += d * x[n * F + f] / B;
        bound[k * F + f] += e * std::abs(x[n * F + f]) / B;
      }
      g[K * F + k] += d / B;
      bound[K * F + k] += e / B;
    }
  }
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double want = w0[i] - lr * g[i];
    ASSERT_NEAR(w1[i], want, lr * bound[i] + 2 * eps32 * std::abs(want) + 1e-30)
        << "parameter " << i;
  }
  // The epoch's loss is the float64 loss of the float32 logits: within the logits' error.
  EXPECT_NEAR(epoch.stats.mean_loss(), loss / B, 1e-5 * (1 + loss / B));
}

TEST_P(NnArrays, PredictAndEvaluateAgreeWithForward) {
  const std::size_t F = 9, K = 4, N = 23;  // 23: two batches of 10 and a padded one of 3
  nn::Sequential model(gpgpu::test::context(), {F});
  model.add(nn::Dense{.units = 6}).add(nn::ReLU{}).add(nn::Dense{.units = K}).add(nn::Softmax{});
  model.set_backend(GetParam().backend, GetParam().options);
  const auto params = nntest::random_parameters(model);
  model.set_parameter_values(params);
  const auto x = gpgpu::test::random_floats(N * F);
  const auto y = nntest::random_labels(N, K);
  const auto probabilities = nn::predict(model, x, nn::Outputs::Model, 10);
  const auto logits = nn::predict(model, x, nn::Outputs::Logits, 10);
  ASSERT_EQ(probabilities.size(), N * K);
  ASSERT_EQ(logits.size(), N * K);
  // Sequential::forward on the whole set at once: the same arithmetic per sample.
  const auto whole = model.forward(nn::Tensor::from(gpgpu::test::context(), {N, F}, x)).to_vector();
  const auto e = nn::evaluate(model, x, y, 10);
  // Both within the float64 forward's float32 error bound, which holds for any summation order.
  const auto reference = nnref::net_forward(model, N, nnref::Array::exact(x), params, false);
  nntest::expect_within(probabilities, reference.inputs.back(), "predict");
  nntest::expect_within(whole, reference.inputs.back(), "forward");
  // The GPU backends compute each sample alone, in one order whatever the batch: predict's
  // batches of 10 give forward's bits. The CPU backend's BLAS may take another kernel, with
  // another summation order, for another number of rows (OpenBLAS 0.3.21 does on AVX-512),
  // so there the bound above is the check.
  const bool same_bits = GetParam().backend != nn::Backend::Cpu;
  double loss = 0;
  std::size_t correct = 0;
  for (std::size_t n = 0; n < N; ++n) {
    double total = 0;
    for (std::size_t k = 0; k < K; ++k) {
      if (same_bits) {
        ASSERT_EQ(probabilities[n * K + k], whole[n * K + k]) << n << ", " << k;
      }
      total += probabilities[n * K + k];
    }
    // Each probability errs by its exp's error (GLSL ES allows 3 + 2|x| ulp for exp(x), x =
    // z_k - max z) and a division's; a CPU libm's exp is within that too.
    const auto row = std::span<const float>(logits).subspan(n * K, K);
    const float top = *std::max_element(row.begin(), row.end());
    double spread = 0;
    for (const float v : row) spread = std::max(spread, double(top) - v);
    EXPECT_NEAR(total, 1.0, K * (5 + 2 * spread) * eps32) << n;
    const auto s = nn::softmax_cross_entropy(row, y[n]);
    loss += s.loss;
    correct += s.predicted == y[n];
    EXPECT_EQ(e.predictions[n], s.predicted);
  }
  EXPECT_DOUBLE_EQ(e.stats.loss_sum, loss);
  EXPECT_EQ(e.stats.correct, static_cast<double>(correct));
  EXPECT_EQ(std::accumulate(e.confusion.begin(), e.confusion.end(), std::size_t{0}), N);
}

TEST_P(NnArrays, LossFallsOnASeparableProblem) {
  const std::size_t F = 6, K = 3, N = 240;
  auto model = dense(F, K);
  model.initialize(gpgpu::test::seed());
  // Class k: samples around a centre of its own (3 in feature k), noise in +-1.
  auto x = gpgpu::test::random_floats(N * F);
  const auto y = nntest::random_labels(N, K);
  for (std::size_t n = 0; n < N; ++n) x[n * F + static_cast<std::size_t>(y[n])] += 3.0f;
  nn::TrainOptions o;
  o.batch = 16;
  o.optimizer = nn::Adam{.learning_rate = 0.05f};
  nn::ArrayTrainer trainer(model, x, y, o);
  std::size_t reports = 0;
  const auto first = trainer.run_epoch([&](const nn::Progress& p) {
    ++reports;
    EXPECT_EQ(p.steps, N / 16);
  });
  EXPECT_EQ(reports, 1 + (N / 16 - 1) / 100);  // report_every 100, and the last step
  auto last = first;
  for (int e = 0; e < 4; ++e) last = trainer.run_epoch();
  EXPECT_LT(last.stats.mean_loss(), 0.5 * first.stats.mean_loss());
  EXPECT_GT(nn::evaluate(model, x, y).accuracy(), 0.9);
  EXPECT_EQ(trainer.epochs_done(), 5u);
  EXPECT_EQ(trainer.steps_done(), 5 * (N / 16));
}

TEST_P(NnArrays, BadInputIsRefusedByName) {
  auto model = dense(4, 3);
  const auto x = gpgpu::test::random_floats(10 * 4);
  const std::vector<int> y(10, 1);
  nn::TrainOptions o;
  o.batch = 5;
  const auto message = [](const auto& call) { return gpgpu::test::error_message_of(call); };
  EXPECT_NE(message([&] {
              nn::ArrayTrainer(model, std::span(x).first(39), y, o);
            }).find("39 values are not a whole number"),
            std::string::npos);
  EXPECT_NE(message([&] {
              nn::ArrayTrainer(model, x, std::span(y).first(9), o);
            }).find("10 samples but 9 labels"),
            std::string::npos);
  std::vector<int> bad = y;
  bad[7] = 3;
  EXPECT_NE(message([&] { nn::ArrayTrainer(model, x, bad, o); }).find("label 3 of sample 7"),
            std::string::npos);
  o.batch = 11;
  EXPECT_NE(message([&] { nn::ArrayTrainer(model, x, y, o); }).find("must be in [1, 10]"),
            std::string::npos);
  o.batch = 5;
  o.augmentation.flip = true;
  EXPECT_THROW(nn::ArrayTrainer(model, x, y, o), gpgpu::ArgumentError);
  EXPECT_THROW(nn::predict(model, x, nn::Outputs::Model, 0), gpgpu::ArgumentError);
  EXPECT_THROW(nn::evaluate(model, x, bad), gpgpu::ArgumentError);
}

INSTANTIATE_TEST_SUITE_P(Backends, NnArrays, ::testing::ValuesIn(nntest::all_backends()),
                         nntest::config_name);

}  // namespace
