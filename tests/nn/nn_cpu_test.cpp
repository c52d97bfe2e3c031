// The CPU backend alongside the others: backend names and the Auto choice; the thread count
// and its caps (option, $GPGPU_THREADS, $OMP_NUM_THREADS) and the threads the pool really
// starts; models trained on one backend, saved and loaded, predicting the same on another;
// and the gradient hook between backward and the optimizer step. (Every layer's forward and
// backward against the float64 reference, and the finite-difference check, run on the CPU
// backend in nn_layers_cpu_test and nn_training_test.)
#include <dirent.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "gpgpu/timeline.hpp"
#include "nn_test_support.hpp"

namespace {

namespace nn = gpgpu::nn;
namespace fs = std::filesystem;

// Sets (or, given nullopt, unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// The CPU backend's pool threads (named "gpgpu-nn-cpu"): a GL driver starts threads of its
// own at times of its choosing (NVIDIA's did, between two counts), so all threads do not do.
std::size_t task_count() {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator("/proc/self/task")) {
    std::ifstream comm(e.path() / "comm");
    std::string name;
    std::getline(comm, name);
    n += name == "gpgpu-nn-cpu";
  }
  return n;
}

TEST(NnCpuBackend, NamesAndTheAutomaticChoice) {
  EXPECT_EQ(nn::backend_from_name("cpu"), nn::Backend::Cpu);
  EXPECT_EQ(nn::backend_from_name("tf"), nn::Backend::TransformFeedback);
  EXPECT_EQ(nn::backend_from_name("auto"), nn::Backend::Auto);
  for (auto b : {nn::Backend::Auto, nn::Backend::Cpu, nn::Backend::Compute,
                 nn::Backend::TransformFeedback}) {
    EXPECT_EQ(nn::parse_backend(nn::to_string(b)), b);
  }
  try {
    nn::backend_from_name("gpu");
    ADD_FAILURE() << "an unknown backend name was accepted";
  } catch (const gpgpu::ArgumentError& e) {
    const std::string what = e.what();
    for (const char* part : {"'gpu'", "auto", "cpu", "compute", "transform-feedback"}) {
      EXPECT_NE(what.find(part), std::string::npos) << what;
    }
  }
  auto& ctx = gpgpu::test::context();
  nn::Sequential model(ctx, {4});
  model.add(nn::Dense{2});
  EXPECT_EQ(model.backend(), nn::Backend::Auto);
  const auto expected = ctx.info().is_software ? nn::Backend::Cpu : nn::Backend::Compute;
  EXPECT_EQ(model.active_backend(), expected);
  EXPECT_EQ(nn::resolve_backend(nn::Backend::Auto, ctx), expected);
  EXPECT_EQ(nn::resolve_backend(nn::Backend::TransformFeedback, ctx),
            nn::Backend::TransformFeedback);
}

TEST(NnCpuBackend, ThreadsAreCappedByTheOptionAndTheEnvironment) {
  ScopedEnv no_gpgpu("GPGPU_THREADS", std::nullopt), no_omp("OMP_NUM_THREADS", std::nullopt);
  const std::size_t all = nn::cpu_threads({});
  EXPECT_GE(all, 1u);
  EXPECT_EQ(nn::cpu_threads({.threads = 1}), 1u);
  EXPECT_EQ(nn::cpu_threads({.threads = 5}), 5u) << "an explicit count is used as given";
  {
    ScopedEnv omp("OMP_NUM_THREADS", "1");
    EXPECT_EQ(nn::cpu_threads({}), 1u);
    ScopedEnv gpgpu_threads("GPGPU_THREADS", std::to_string(all + 7));
    EXPECT_EQ(nn::cpu_threads({}), all) << "$GPGPU_THREADS caps (and wins over OMP_NUM_THREADS)";
    EXPECT_EQ(nn::cpu_threads({.threads = 3}), 3u) << "the option wins over the environment";
  }
  {
    ScopedEnv omp("OMP_NUM_THREADS", "1,4");  // OpenMP's list: the outer level counts
    EXPECT_EQ(nn::cpu_threads({}), 1u);
  }
  for (const char* bad : {"0", "two", "-1", "3x"}) {
    ScopedEnv env("GPGPU_THREADS", bad);
    try {
      nn::cpu_threads({});
      ADD_FAILURE() << "GPGPU_THREADS=" << bad << " was accepted";
    } catch (const gpgpu::ArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("GPGPU_THREADS"), std::string::npos) << e.what();
    }
  }
}

// The pool starts threads - 1 workers (the caller is the first thread) once, when the
// backend's engine is made, and ends them with it.
TEST(NnCpuBackend, ThePoolStartsTheThreadsItWasGiven) {
  auto& ctx = gpgpu::test::context();
  const auto x = nn::Tensor::from(ctx, {3, 5}, gpgpu::test::random_floats(15));
  for (std::size_t threads : {1u, 3u}) {
    nn::Sequential model(ctx, {5});
    model.add(nn::Dense{4});
    model.set_backend(nn::Backend::Cpu, {.threads = threads});
    const std::size_t before = task_count();
    model.forward(x);
    EXPECT_EQ(task_count(), before + threads - 1) << threads << " threads";
    model.set_backend(nn::Backend::Cpu, {.threads = 1});  // ends the engine and its pool
    EXPECT_EQ(task_count(), before);
  }
  {
    ScopedEnv env("GPGPU_THREADS", "2");
    nn::Sequential model(ctx, {5});
    model.add(nn::Dense{4});
    model.set_backend(nn::Backend::Cpu);
    const std::size_t before = task_count();
    model.forward(x);
    EXPECT_EQ(task_count(), before + std::min<std::size_t>(2, nn::cpu_threads({})) - 1);
  }
}

// Trains `small` for a few steps on `from`, saves the model, loads it on `to`, and classifies
// 64 test images on both: the logits agree within twice the float32 bound of the float64
// reference (both are within it), and so do the predicted classes wherever the two largest
// reference logits are further apart than their bounds (elsewhere either class is right).
void check_trained_model_moves(nn::Backend from, nn::Backend to) {
  SCOPED_TRACE(std::string(nn::to_string(from)) + " -> " + std::string(nn::to_string(to)));
  auto& ctx = gpgpu::test::context();
  const auto dir = nn::default_data_dir();
  ASSERT_TRUE(fs::exists(dir)) << dir << " is missing: install dataset-fashion-mnist";
  const auto train = nn::load_idx_dataset(dir, "train").first(128);
  const auto test = nn::load_idx_dataset(dir, "t10k").first(64);
  auto recipe = nn::builtin_net(ctx, "small", train.sample_shape(), train.classes);
  recipe.model.set_backend(from);
  recipe.model.set_normalization(nn::normalization_of(train));
  recipe.model.initialize(11);
  nn::DeviceDataset device_train(ctx, train), device_test(ctx, test);
  nn::Trainer(recipe.model, device_train, recipe.options).run_epoch();
  const fs::path file =
      fs::temp_directory_path() / ("nn_cpu_test_" + std::to_string(::getpid()) + ".npz");
  nn::save_model(recipe.model, file);
  auto loaded = nn::load_model(ctx, file);
  fs::remove(file);
  loaded.set_backend(to);
  std::vector<std::uint32_t> all(64);
  for (std::uint32_t i = 0; i < 64; ++i) all[i] = i;
  const auto x = device_test.gather(all, recipe.model.normalization());
  const auto before = recipe.model.forward(x).to_vector();
  const auto after = loaded.forward(x).to_vector();
  const auto params = loaded.parameter_values();
  EXPECT_EQ(params, recipe.model.parameter_values());
  const auto ref =
      nnref::net_forward(loaded, 64, nnref::Array::exact(x.to_vector()), params, false);
  auto doubled = nnref::Array::exact(before);
  doubled.e = ref.inputs.back().e;
  for (auto& e : doubled.e) e *= 2;
  nntest::expect_within(after, doubled, "logits on the other backend");
  const auto& z = ref.inputs.back();
  std::size_t decided = 0;
  for (std::size_t n = 0; n < 64; ++n) {
    std::size_t top = 0, second = 1;
    for (std::size_t j = 0; j < 10; ++j) {
      const double v = z.v[n * 10 + j];
      if (v > z.v[n * 10 + top]) {
        second = top;
        top = j;
      } else if (j != top && (second == top || v > z.v[n * 10 + second])) {
        second = j;
      }
    }
    if (z.v[n * 10 + top] - z.v[n * 10 + second] <= 2 * (z.e[n * 10 + top] + z.e[n * 10 + second]))
      continue;
    ++decided;
    auto argmax = [&](const std::vector<float>& v) {
      return std::max_element(v.begin() + static_cast<std::ptrdiff_t>(n * 10),
                              v.begin() + static_cast<std::ptrdiff_t>(n * 10 + 10)) -
             (v.begin() + static_cast<std::ptrdiff_t>(n * 10));
    };
    EXPECT_EQ(argmax(before), argmax(after)) << "image " << n;
    EXPECT_EQ(static_cast<std::size_t>(argmax(after)), top) << "image " << n;
  }
  EXPECT_GE(decided, 60u) << "near-ties should be rare";
}

TEST(NnCpuBackend, ModelsTrainedOnTheCpuPredictTheSameOnComputeAndBack) {
  check_trained_model_moves(nn::Backend::Cpu, nn::Backend::Compute);
  check_trained_model_moves(nn::Backend::Compute, nn::Backend::Cpu);
}

// The hook sees the gradients of every trainable parameter, flat, and what it leaves is
// what the optimizer applies: zeroed gradients leave plain SGD's parameters unchanged, and
// a hook that leaves them alone changes nothing (same backend, same run: bit for bit; the
// compute backend without autotuning, whose timings could pick another summation order).
class NnGradientHook : public ::testing::TestWithParam<nntest::BackendConfig> {};

TEST_P(NnGradientHook, RunsBetweenBackwardAndTheUpdate) {
  auto& ctx = gpgpu::test::context();
  const auto dir = nn::default_data_dir();
  ASSERT_TRUE(fs::exists(dir)) << dir << " is missing: install dataset-fashion-mnist";
  const auto data = nn::load_idx_dataset(dir, "train").first(64);
  nn::DeviceDataset device(ctx, data);
  auto run = [&](const std::function<void(std::span<float>)>& hook, std::size_t* calls) {
    auto recipe = nn::builtin_net(ctx, "small", data.sample_shape(), data.classes);
    recipe.model.set_backend(GetParam().backend, GetParam().options);
    recipe.model.initialize(5);
    recipe.options.optimizer = nn::SGD{.learning_rate = 0.05f};
    recipe.options.batch = 32;
    recipe.options.gradient_hook = [&](std::span<float> g) {
      ++*calls;
      EXPECT_EQ(g.size(), recipe.model.trainable_parameter_count());
      if (hook) hook(g);
    };
    const auto start = recipe.model.parameter_values();
    nn::Trainer(recipe.model, device, recipe.options).run_epoch();
    return std::make_pair(start, recipe.model.parameter_values());
  };
  std::size_t calls = 0;
  const auto [start, frozen] =
      run([](std::span<float> g) { std::fill(g.begin(), g.end(), 0.0f); }, &calls);
  EXPECT_EQ(calls, 2u);
  EXPECT_EQ(frozen, start) << "zeroed gradients must leave SGD's parameters as they were";
  std::size_t more = 0;
  const auto observed = run([](std::span<float>) {}, &more).second;
  // The same training without a hook.
  auto recipe = nn::builtin_net(ctx, "small", data.sample_shape(), data.classes);
  recipe.model.set_backend(GetParam().backend, GetParam().options);
  recipe.model.initialize(5);
  recipe.options.optimizer = nn::SGD{.learning_rate = 0.05f};
  recipe.options.batch = 32;
  nn::Trainer(recipe.model, device, recipe.options).run_epoch();
  EXPECT_EQ(observed, recipe.model.parameter_values());
  EXPECT_NE(observed, start);
}

nn::Dataset first_train_images(std::size_t n) {
  return nn::load_idx_dataset(nn::default_data_dir(), "train").first(n);
}

// The "small" net on the configured backend, initialised from `seed`, with a batch of 32: two
// steps an epoch over 64 images.
nn::NetRecipe two_step_net(const nn::Dataset& data, const nntest::BackendConfig& config,
                           std::uint32_t seed) {
  auto recipe = nn::builtin_net(gpgpu::test::context(), "small", data.sample_shape(), data.classes);
  recipe.model.set_backend(config.backend, config.options);
  recipe.model.initialize(seed);
  recipe.options.batch = 32;
  return recipe;
}

// gradients_ready hands over each layer's finished gradients as the backward pass goes:
// what GradientStaging::landed() reports as landed must be in the array then (the MPI
// reduction starts reading it at once), equal to what the update gets; a range never
// requested has not landed. (The compute engine's copies land in mapped memory, there when
// the GPU is done; without GL_EXT_buffer_storage they pass through staging and landed()
// writes them. Through the data path's staging, as before, a landed() that trusted the fence
// alone failed this test.)
TEST_P(NnGradientHook, WhatHasLandedIsInTheArray) {
  const auto data = first_train_images(64);
  nn::DeviceDataset device(gpgpu::test::context(), data);
  auto recipe = two_step_net(data, GetParam(), 6);
  std::map<std::size_t, std::vector<float>> seen;  // from -> [from, end) when it landed
  std::size_t checked = 0;
  recipe.options.gradients_ready = [&](std::size_t from, nn::GradientStaging& staging) {
    if (!seen.contains(from)) {
      if (GetParam().backend == nn::Backend::Compute) {
        EXPECT_FALSE(staging.landed(from));
      }
      staging.request(from);
      seen[from] = {};
    }
    for (auto& [first, copy] : seen) {
      if (copy.empty() && staging.landed(first)) {
        const auto a = staging.array().subspan(first);
        copy.assign(a.begin(), a.end());
      }
    }
  };
  recipe.options.gradient_hook = [&](std::span<float> g) {
    for (auto& [first, copy] : seen) {
      ASSERT_EQ(copy.size(), g.size() - first) << "positions from " << first << " never landed";
      for (std::size_t i = 0; i < copy.size(); ++i) {
        ASSERT_EQ(copy[i], g[first + i]) << "position " << first + i << " landed as " << copy[i]
                                         << " before its copy was written";
      }
      ++checked;
    }
    seen.clear();
  };
  nn::Trainer(recipe.model, device, recipe.options).run_epoch();
  EXPECT_GE(checked, 4u);
}

// A range committed early (GradientStaging::commit) and the rest at the end both reach the
// update: zeroed gradients, a middle range handed back early, leave SGD's weights as they
// were (a range uploaded neither early nor at the end would keep backward's gradients).
TEST_P(NnGradientHook, EarlyCommitsAndTheRestReachTheUpdate) {
  const auto data = first_train_images(64);
  nn::DeviceDataset device(gpgpu::test::context(), data);
  auto recipe = two_step_net(data, GetParam(), 7);
  recipe.options.optimizer = nn::SGD{.learning_rate = 0.05f};
  const std::size_t n = recipe.model.trainable_parameter_count();
  const std::size_t lo = n / 3, hi = 2 * n / 3;
  bool committed = false;
  recipe.options.gradients_ready = [&](std::size_t, nn::GradientStaging& staging) {
    staging.request(0);
    if (committed || !staging.landed(0)) return;
    auto a = staging.array();
    std::fill(a.begin() + static_cast<std::ptrdiff_t>(lo),
              a.begin() + static_cast<std::ptrdiff_t>(hi), 0.0f);
    staging.commit(lo, hi);
    committed = true;
  };
  std::size_t steps = 0;
  recipe.options.gradient_hook = [&](std::span<float> g) {
    EXPECT_TRUE(committed);
    std::fill(g.begin(), g.end(), 0.0f);
    committed = false;
    ++steps;
  };
  const auto start = recipe.model.parameter_values();
  nn::Trainer(recipe.model, device, recipe.options).run_epoch();
  EXPECT_EQ(steps, 2u);
  EXPECT_EQ(recipe.model.parameter_values(), start);
}

// A request below ready_from waits for its layers: asking for all of it (request(0)) at
// the first layer's report leaves landed(0) false until every layer has run backward, and
// then the array holds this step's gradients, so training is bit for bit that without hooks
// (a request passed on at once copied the earlier layers' gradients before their kernels ran:
// the last step's, or zeros, reached the update). from() and commit() below ready_from are
// refused: those positions are not final.
TEST_P(NnGradientHook, RequestsBelowReadyFromWaitForTheirLayers) {
  const auto data = first_train_images(64);
  nn::DeviceDataset device(gpgpu::test::context(), data);
  auto hooked = two_step_net(data, GetParam(), 11);
  hooked.options.optimizer = nn::SGD{.learning_rate = 0.05f};
  std::vector<float> landed;  // the array when landed(0) first held this step
  std::size_t early = 0, steps = 0;
  hooked.options.gradients_ready = [&](std::size_t from, nn::GradientStaging& staging) {
    staging.request(0);
    if (from > 0) {
      ++early;
      EXPECT_FALSE(staging.landed(0)) << "positions below " << from << " landed before backward";
      EXPECT_THROW(staging.from(0), gpgpu::ArgumentError);
      EXPECT_THROW(staging.commit(0, from), gpgpu::ArgumentError);
      return;
    }
    if (landed.empty() && staging.landed(0)) {
      const auto a = staging.array();
      landed.assign(a.begin(), a.end());
    }
  };
  hooked.options.gradient_hook = [&](std::span<float> g) {
    ASSERT_EQ(landed.size(), g.size()) << "landed(0) never held";
    for (std::size_t i = 0; i < g.size(); ++i) ASSERT_EQ(landed[i], g[i]) << "position " << i;
    landed.clear();
    ++steps;
  };
  nn::Trainer(hooked.model, device, hooked.options).run_epoch();
  EXPECT_EQ(steps, 2u);
  EXPECT_EQ(early, 2u * 2u) << "the small net reports its dense and second conv layers early";
  auto plain = two_step_net(data, GetParam(), 11);
  plain.options.optimizer = nn::SGD{.learning_rate = 0.05f};
  nn::Trainer(plain.model, device, plain.options).run_epoch();
  EXPECT_EQ(hooked.model.parameter_values(), plain.model.parameter_values());
}

// gradient_values() after a hooked step is what the hook left, the gradients the update used
// (on the compute backend the update reads them from the host copy, uploading nothing), and
// after a later backward() the new batch's gradients again.
TEST_P(NnGradientHook, GradientValuesAreWhatTheUpdateUsed) {
  const auto data = first_train_images(64);
  auto& ctx = gpgpu::test::context();
  nn::DeviceDataset device(ctx, data);
  auto recipe = two_step_net(data, GetParam(), 9);
  const std::size_t n = recipe.model.trainable_parameter_count();
  std::vector<float> left(n);
  for (std::size_t i = 0; i < n; ++i) left[i] = static_cast<float>(i % 97) * 0.001f - 0.05f;
  recipe.options.gradient_hook = [&](std::span<float> g) {
    std::copy(left.begin(), left.end(), g.begin());
  };
  nn::Trainer(recipe.model, device, recipe.options).run_epoch();
  const auto used = recipe.model.gradient_values();
  ASSERT_GE(used.size(), n);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(used[i], left[i]) << "position " << i;
  std::vector<std::uint32_t> first(32);
  std::iota(first.begin(), first.end(), 0u);
  const auto x = device.gather(first, recipe.model.normalization());
  const auto y = recipe.model.forward(x, nn::Mode::Train);
  recipe.model.backward(nn::Tensor::from(ctx, y.shape(), std::vector<float>(y.size(), 1.0f)));
  const auto fresh = recipe.model.gradient_values();
  EXPECT_NE(std::vector<float>(fresh.begin(), fresh.begin() + static_cast<std::ptrdiff_t>(n)),
            left);
}

// Progress reports read the accumulators after their step without draining the GPU (taken
// once the next step is queued): each must still carry its own steps. The mean of the first
// five one-step reports equals one report over those five steps read at the end of an epoch
// cut there (the same float sums: a report taken a step late would hold six).
TEST_P(NnGradientHook, DeferredReportsCarryTheirOwnSteps) {
  const auto data = first_train_images(64);
  nn::DeviceDataset device(gpgpu::test::context(), data);
  auto run = [&](std::size_t steps, std::size_t every, std::vector<std::size_t>* at) {
    auto recipe = two_step_net(data, GetParam(), 10);
    recipe.options.batch = 8;
    recipe.options.limit_steps = steps;
    recipe.options.report_every = every;
    return nn::Trainer(recipe.model, device, recipe.options)
        .run_epoch([&](const nn::Progress& p) {
          if (at) at->push_back(p.step);
        })
        .loss_curve;
  };
  std::vector<std::size_t> at;
  const auto each = run(8, 1, &at);
  EXPECT_EQ(at, (std::vector<std::size_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  const auto five = run(5, 5, nullptr);
  ASSERT_EQ(each.size(), 8u);
  ASSERT_EQ(five.size(), 1u);
  const double mean = (each[0] + each[1] + each[2] + each[3] + each[4]) / 5;
  EXPECT_NEAR(mean, five[0], 1e-9 * five[0]);
  EXPECT_GT(std::abs((mean * 5 + each[5]) / 6 - five[0]), 1e-6 * five[0]) << "steps must differ";
}

// TrainOptions::timeline marks each step's phases in order, indexed by the steps done before
// it (counting on across epochs), and only the steps of its window: three marks a step
// without hooks, five with one (the gradients' landing and their sum between backward and
// the update).
TEST_P(NnGradientHook, MarksEachStepsPhasesOnATimeline) {
  const auto data = first_train_images(64);
  nn::DeviceDataset device(gpgpu::test::context(), data);
  for (const bool hooked : {false, true}) {
    SCOPED_TRACE(hooked ? "with a gradient hook" : "without hooks");
    auto recipe = two_step_net(data, GetParam(), 8);
    if (hooked) recipe.options.gradient_hook = [](std::span<float>) {};
    gpgpu::Timeline timeline(gpgpu::test::context(), {.first = 1, .last = 2});
    recipe.options.timeline = &timeline;
    nn::Trainer trainer(recipe.model, device, recipe.options);
    trainer.run_epoch();
    trainer.run_epoch();  // steps 0-3: the window spans the epochs' boundary
    std::vector<std::string> phases{"step", "backward queued"};
    if (hooked) phases.insert(phases.end(), {"gradients landed", "gradients summed"});
    phases.push_back("update queued");
    const auto marks = timeline.marks();
    ASSERT_EQ(marks.size(), 2 * phases.size());
    for (std::size_t i = 0; i < marks.size(); ++i) {
      EXPECT_EQ(marks[i].label, phases[i % phases.size()]) << "mark " << i;
      EXPECT_EQ(marks[i].index, static_cast<long long>(1 + i / phases.size())) << "mark " << i;
      if (i > 0) {
        EXPECT_GE(marks[i].host_us, marks[i - 1].host_us) << "mark " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Backends, NnGradientHook,
    ::testing::Values(nntest::BackendConfig{"cpu", nn::Backend::Cpu, {.threads = 2}},
                      nntest::BackendConfig{"compute", nn::Backend::Compute, {.autotune = false}},
                      nntest::BackendConfig{
                          "transform_feedback", nn::Backend::TransformFeedback, {}}),
    nntest::config_name);

}  // namespace
