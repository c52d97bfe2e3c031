// Data and files: IDX reading (plain and gzip) and its errors, data set loading, shuffling,
// batch gathering with augmentation, evaluation's bookkeeping, save -> load -> identical
// predictions (.npy directory and .npz), networks from JSON, and clear errors for bad input.
#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "gpgpu/error.hpp"
#include "gpgpu/npy.hpp"
#include "nn_test_support.hpp"

namespace {

namespace nn = gpgpu::nn;
namespace fs = std::filesystem;

// A fresh directory under the system's temporary directory, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("gpgpu_nn_test_" + std::to_string(gpgpu::test::rng()()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write_bytes(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

void write_gzip(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
}

std::vector<std::uint8_t> random_bytes(std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(gpgpu::test::rng()() & 0xFF);
  return v;
}

// A small labelled data set of random images, written as IDX files (gzip for the images).
nn::Dataset write_dataset(const fs::path& dir, std::size_t count, std::size_t h, std::size_t w,
                          std::size_t classes) {
  nn::IdxArray images{{count, h, w}, random_bytes(count * h * w)};
  nn::IdxArray labels{{count}, {}};
  for (std::size_t i = 0; i < count; ++i)
    labels.values.push_back(static_cast<std::uint8_t>(i % classes));
  nn::write_idx(dir / "train-images-idx3-ubyte.tmp", images);
  std::ifstream in(dir / "train-images-idx3-ubyte.tmp", std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
  write_gzip(dir / "train-images-idx3-ubyte.gz", bytes);
  fs::remove(dir / "train-images-idx3-ubyte.tmp");
  nn::write_idx(dir / "train-labels-idx1-ubyte", labels);
  nn::Dataset d;
  d.images = images.values;
  d.labels = labels.values;
  d.count = count;
  d.height = h;
  d.width = w;
  d.classes = classes;
  return d;
}

template <class E, class F>
void expect_error(F&& f, const std::vector<std::string>& words) {
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (const E& e) {
    const std::string message = e.what();
    for (const auto& w : words)
      EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

TEST(NnData, IdxRoundTripsPlainAndGzip) {
  TempDir dir;
  const nn::IdxArray a{{3, 5, 2}, random_bytes(30)};
  nn::write_idx(dir.path / "a.idx", a);
  const auto plain = nn::read_idx(dir.path / "a.idx");
  EXPECT_EQ(plain.shape, a.shape);
  EXPECT_EQ(plain.values, a.values);
  std::ifstream in(dir.path / "a.idx", std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
  write_gzip(dir.path / "a.idx.gz", bytes);
  const auto gz = nn::read_idx(dir.path / "a.idx.gz");
  EXPECT_EQ(gz.shape, a.shape);
  EXPECT_EQ(gz.values, a.values);
}

TEST(NnData, CorruptIdxFilesGiveClearErrors) {
  TempDir dir;
  write_bytes(dir.path / "magic", {1, 0, 8, 1, 0, 0, 0, 1, 7});
  expect_error<gpgpu::FormatError>([&] { nn::read_idx(dir.path / "magic"); },
                                   {"magic", "two zero bytes"});
  write_bytes(dir.path / "type", {0, 0, 0x0D, 1, 0, 0, 0, 1, 0, 0, 0, 0});
  expect_error<gpgpu::FormatError>([&] { nn::read_idx(dir.path / "type"); },
                                   {"0x0D", "float", "not supported"});
  write_bytes(dir.path / "size", {0, 0, 8, 2, 0, 0, 0, 3, 0, 0, 0, 4, 1, 2, 3});
  expect_error<gpgpu::FormatError>([&] { nn::read_idx(dir.path / "size"); },
                                   {"(3, 4) = 12 values", "3 bytes"});
  write_bytes(dir.path / "short", {0, 0, 8, 3, 0, 0});
  expect_error<gpgpu::FormatError>([&] { nn::read_idx(dir.path / "short"); }, {"3 dimensions"});
  // A gzip stream cut in half.
  const nn::IdxArray a{{1000}, random_bytes(1000)};
  nn::write_idx(dir.path / "full", a);
  std::ifstream in(dir.path / "full", std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
  write_gzip(dir.path / "full.gz", bytes);
  std::ifstream gin(dir.path / "full.gz", std::ios::binary);
  std::vector<std::uint8_t> gz((std::istreambuf_iterator<char>(gin)),
                               std::istreambuf_iterator<char>());
  gz.resize(gz.size() / 2);
  write_bytes(dir.path / "cut.gz", gz);
  EXPECT_THROW(nn::read_idx(dir.path / "cut.gz"), gpgpu::FormatError);
  expect_error<gpgpu::Error>([&] { nn::read_idx(dir.path / "absent"); },
                             {"absent", "no such file"});
}

TEST(NnData, DatasetLoadingChecksFilesAndCounts) {
  TempDir dir;
  expect_error<gpgpu::Error>([&] { nn::load_idx_dataset(dir.path, "train"); },
                             {"train", "images", dir.path.string(), "dataset-fashion-mnist"});
  const auto d = write_dataset(dir.path, 12, 5, 4, 3);
  const auto loaded = nn::load_idx_dataset(dir.path, "train");
  EXPECT_EQ(loaded.images, d.images);
  EXPECT_EQ(loaded.labels, d.labels);
  EXPECT_EQ(loaded.classes, 3u);
  EXPECT_EQ(loaded.sample_shape(), (nn::Shape{1, 5, 4}));
  nn::write_idx(dir.path / "train-labels-idx1-ubyte", {{11}, std::vector<std::uint8_t>(11, 1)});
  expect_error<gpgpu::FormatError>([&] { nn::load_idx_dataset(dir.path, "train"); },
                                   {"12 images", "11 labels"});
}

TEST(NnData, ShuffledIndicesArePermutationsPerEpoch) {
  const auto a = nn::shuffled_indices(1000, 5, 0), b = nn::shuffled_indices(1000, 5, 0);
  const auto c = nn::shuffled_indices(1000, 5, 1), d = nn::shuffled_indices(1000, 6, 0);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, d);
  EXPECT_EQ(std::set<std::uint32_t>(a.begin(), a.end()).size(), 1000u);
  EXPECT_EQ(*std::max_element(a.begin(), a.end()), 999u);
}

// CPU normalisation as the kernel computes it: (p * (1/255) - mean) * (1/std) in float32; the
// device may fuse the multiply and subtract, so they agree within 2 roundings of each term.
float normalized(std::uint8_t p, const nn::Normalization& n) {
  return (static_cast<float>(p) * (1.0f / 255.0f) - n.mean) * (1.0f / n.stddev);
}
bool close(float got, float want, const nn::Normalization& n) {
  const double scale = std::abs(want) + std::abs(n.mean / n.stddev) + 1.0 / n.stddev;
  return std::abs(got - want) <= 4 * nnref::eps * scale;
}

TEST(NnData, GatherNormalisesAndAugments) {
  auto& ctx = gpgpu::test::context();
  TempDir dir;
  const auto data = write_dataset(dir.path, 60, 6, 7, 4);
  const nn::DeviceDataset device(ctx, data);
  const auto norm = nn::normalization_of(data);
  std::vector<std::uint32_t> indices;
  for (int i = 0; i < 200; ++i)
    indices.push_back(static_cast<std::uint32_t>(gpgpu::test::rng()() % 60));
  const std::size_t hw = 42;
  // Without augmentation: exactly the normalised pixels.
  const auto plain = device.gather(indices, norm).to_vector();
  for (std::size_t n = 0; n < indices.size(); ++n) {
    for (std::size_t p = 0; p < hw; ++p) {
      ASSERT_TRUE(
          close(plain[n * hw + p], normalized(data.images[indices[n] * hw + p], norm), norm))
          << n << " " << p;
    }
  }
  // With flips and shifts of up to 2: each image is one of the 2 x 5 x 5 variants (pixels
  // shifted in are 0 before normalisation), the same variant for the same sample and seed,
  // and the variants vary.
  const nn::Augmentation aug{.flip = true, .shift = 2};
  const auto augmented = device.gather(indices, norm, aug, 99).to_vector();
  const auto again = device.gather(indices, norm, aug, 99).to_vector();
  EXPECT_EQ(augmented, again);
  std::set<std::tuple<int, int, int>> seen;
  for (std::size_t n = 0; n < indices.size(); ++n) {
    bool found = false;
    for (int flip = 0; flip < 2 && !found; ++flip) {
      for (int dy = -2; dy <= 2 && !found; ++dy) {
        for (int dx = -2; dx <= 2 && !found; ++dx) {
          bool match = true;
          for (int y = 0; y < 6 && match; ++y) {
            for (int x = 0; x < 7 && match; ++x) {
              const int sx = (flip ? 6 - x : x) - dx, sy = y - dy;
              const std::uint8_t p =
                  (sx >= 0 && sx < 7 && sy >= 0 && sy < 6)
                      ? data.images[indices[n] * hw + static_cast<std::size_t>(sy * 7 + sx)]
                      : 0;
              match = close(augmented[n * hw + static_cast<std::size_t>(y * 7 + x)],
                            normalized(p, norm), norm);
            }
          }
          if (match) {
            found = true;
            seen.insert({flip, dy, dx});
          }
        }
      }
    }
    EXPECT_TRUE(found) << "gathered image " << n << " is no flip/shift of sample " << indices[n];
  }
  EXPECT_GE(seen.size(), 10u) << "augmentation should draw many different variants";
  expect_error<gpgpu::ArgumentError>([&] { device.gather(std::vector<std::uint32_t>{60}, norm); },
                                     {"60", "past"});
}

// Evaluation through a model that is only Flatten: its "logits" are the normalised pixels,
// so its predictions are each image's brightest pixel and its loss logsumexp(x) - x[label],
// checked against the CPU over batches of 7 (the last one partial).
class NnEvaluate : public ::testing::TestWithParam<nntest::BackendConfig> {};

TEST_P(NnEvaluate, GathersBatchesAndCountsEverySampleOnce) {
  auto& ctx = gpgpu::test::context();
  TempDir dir;
  const auto data = write_dataset(dir.path, 30, 4, 5, 6);
  const nn::DeviceDataset device(ctx, data);
  nn::Sequential model(ctx, {1, 4, 5});
  model.add(nn::Flatten{});
  model.set_backend(GetParam().backend, GetParam().options);
  const auto norm = nn::normalization_of(data);
  model.set_normalization(norm);
  const auto e = nn::evaluate(model, device, 7);
  ASSERT_EQ(e.predictions.size(), 30u);
  double loss = 0, loss_bound = 0;
  std::size_t correct = 0;
  for (std::size_t n = 0; n < 30; ++n) {
    std::vector<float> x(20);
    for (std::size_t p = 0; p < 20; ++p) x[p] = normalized(data.images[n * 20 + p], norm);
    const auto ref = nn::softmax_cross_entropy(x, data.labels[n]);
    // Ties within the rounding of the normalisation could pick another index; bytes are
    // random, so require the device's choice to hold a largest byte.
    const auto best =
        *std::max_element(data.images.begin() + static_cast<std::ptrdiff_t>(n * 20),
                          data.images.begin() + static_cast<std::ptrdiff_t>(n * 20 + 20));
    EXPECT_EQ(data.images[n * 20 + static_cast<std::size_t>(e.predictions[n])], best)
        << "sample " << n;
    correct += e.predictions[n] == data.labels[n];
    loss += ref.loss;
    // 20 exps at (3 + 2 spread) ulp each, their sum and the log: bounded by 64 ulp of
    // (|lse| + spread) per sample, and the inputs' own rounding (4 eps of their scale).
    loss_bound += 64 * 2 * nnref::eps * (std::abs(ref.loss) + 10) +
                  8 * nnref::eps * (std::abs(norm.mean) + 1) / norm.stddev;
  }
  EXPECT_EQ(e.stats.count, 30u);
  EXPECT_EQ(static_cast<std::size_t>(e.stats.correct), correct);
  EXPECT_NEAR(e.stats.loss_sum, loss, loss_bound);
  std::size_t total = 0;
  for (auto c : e.confusion) total += c;
  EXPECT_EQ(total, 30u);
}

INSTANTIATE_TEST_SUITE_P(
    Backends, NnEvaluate,
    ::testing::Values(nntest::BackendConfig{"compute", nn::Backend::Compute, {}},
                      nntest::BackendConfig{
                          "transform_feedback", nn::Backend::TransformFeedback, {}},
                      nntest::BackendConfig{"cpu", nn::Backend::Cpu, {}}),
    nntest::config_name);

nn::Sequential net_with_everything(const gpgpu::Context& ctx) {
  nn::Sequential m(ctx, {1, 8, 8});
  m.add(nn::Conv2D{3, 3, 1, 1})
      .add(nn::BatchNorm{})
      .add(nn::ReLU{})
      .add(nn::MaxPool2D{2})
      .add(nn::Flatten{})
      .add(nn::Dense{5})
      .add(nn::Dropout{0.25f})
      .add(nn::Dense{3})
      .add(nn::Softmax{});
  m.set_normalization({0.25f, 0.5f});
  m.set_class_names({"a", "b", "c"});
  return m;
}

TEST(NnSerialization, SaveLoadGivesIdenticalPredictions) {
  auto& ctx = gpgpu::test::context();
  TempDir dir;
  auto model = net_with_everything(ctx);
  model.set_parameter_values(nntest::random_parameters(model));
  const auto x = nn::Tensor::from(ctx, {4, 1, 8, 8}, gpgpu::test::random_floats(256));
  const auto before = model.forward(x).to_vector();
  for (const char* name : {"model", "model.npz"}) {
    SCOPED_TRACE(name);
    nn::save_model(model, dir.path / name);
    auto loaded = nn::load_model(ctx, dir.path / name);
    EXPECT_EQ(loaded.parameter_values(), model.parameter_values());
    EXPECT_EQ(loaded.forward(x).to_vector(), before);
    EXPECT_EQ(loaded.class_names(), model.class_names());
    EXPECT_EQ(loaded.normalization().mean, 0.25f);
    EXPECT_EQ(loaded.summary(), model.summary());
    // Saving again over it replaces it.
    nn::save_model(loaded, dir.path / name);
    EXPECT_EQ(nn::load_model(ctx, dir.path / name).parameter_values(), model.parameter_values());
  }
  EXPECT_TRUE(fs::exists(dir.path / "model" / "00_gamma.npy") == false);
  EXPECT_TRUE(fs::exists(dir.path / "model" / "01_gamma.npy"));
  EXPECT_TRUE(fs::exists(dir.path / "model" / "00_weight.npy"));
  // Files numpy can read: a plain .npy of the right shape.
  const auto w = gpgpu::npy::load(dir.path / "model" / "00_weight.npy");
  EXPECT_EQ(w.shape, (std::vector<std::size_t>{3, 1, 3, 3}));
}

TEST(NnSerialization, BadFilesGiveClearErrors) {
  auto& ctx = gpgpu::test::context();
  TempDir dir;
  auto model = net_with_everything(ctx);
  expect_error<gpgpu::Error>([&] { nn::load_model(ctx, dir.path / "none"); },
                             {"none", "not a directory"});
  nn::save_model(model, dir.path / "m");
  fs::remove(dir.path / "m" / "05_bias.npy");
  expect_error<gpgpu::FormatError>([&] { nn::load_model(ctx, dir.path / "m"); },
                                   {"05_bias.npy", "missing", "(5,)"});
  gpgpu::npy::save(dir.path / "m" / "05_bias.npy",
                   gpgpu::npy::make<float>({4}, std::vector<float>(4, 1.0f)));
  expect_error<gpgpu::FormatError>([&] { nn::load_model(ctx, dir.path / "m"); },
                                   {"05_bias.npy", "expected float32 (5,)", "(4,)"});
  // Saving over a directory that is not a model is refused, and leaves it as it was.
  fs::create_directories(dir.path / "precious");
  write_bytes(dir.path / "precious" / "notes.txt", {1, 2, 3});
  expect_error<gpgpu::Error>([&] { nn::save_model(model, dir.path / "precious"); },
                             {"not a saved model"});
  EXPECT_TRUE(fs::exists(dir.path / "precious" / "notes.txt"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()), 2)
      << "no temporaries left";
}

TEST(NnSerialization, NetworksFromJson) {
  auto& ctx = gpgpu::test::context();
  auto model = nn::model_from_json(ctx, R"({"input": [1, 28, 28], "layers": [
      {"type": "conv2d", "filters": 8, "kernel": 5, "padding": 2}, {"type": "relu"},
      {"type": "maxpool2d"}, {"type": "flatten"}, {"type": "dense", "units": 10, "init": "xavier"}]})");
  EXPECT_EQ(model.output_shape(), (nn::Shape{10}));
  EXPECT_EQ(model.parameter_count(), 8u * 25 + 8 + 8 * 14 * 14 * 10 + 10);
  auto again = nn::model_from_json(ctx, nn::architecture_json(model));
  EXPECT_EQ(again.summary(), model.summary());
  expect_error<gpgpu::FormatError>(
      [&] {
        nn::model_from_json(ctx, R"({"input": [4], "layers": [{"type": "dense", "unit": 3}]})",
                            "net.json");
      },
      {"net.json", "layer 0", "unknown key \"unit\""});
  expect_error<gpgpu::FormatError>(
      [&] { nn::model_from_json(ctx, R"({"input": [4], "layers": [{"type": "conv3d"}]})"); },
      {"unknown type \"conv3d\""});
  expect_error<gpgpu::FormatError>(
      [&] {
        nn::model_from_json(ctx, R"({"input": [4], "layers": [{"type": "dense", "units": -2}]})");
      },
      {"\"units\" must be an integer >= 1"});
  expect_error<gpgpu::FormatError>(
      [&] {
        nn::model_from_json(ctx,
                            R"({"input": [1, 4, 4], "layers": [{"type": "dense", "units": 2}]})");
      },
      {"add a flatten layer"});
  expect_error<gpgpu::FormatError>([&] { nn::model_from_json(ctx, "{not json"); },
                                   {"not valid JSON"});
}

// The layers ONNX import brought (per-side padding, padded and ceil-mode pools, global
// average pooling, LeakyReLU, Clip) keep every setting through JSON and through files.
TEST(NnSerialization, PaddedPoolsAndNewActivationsRoundTrip) {
  auto& ctx = gpgpu::test::context();
  TempDir dir;
  nn::Sequential model(ctx, {2, 9, 8});
  model.add(nn::Conv2D{.filters = 3, .kernel = 4, .stride = 2, .pads = nn::Padding{1, 0, 2, 1}})
      .add(nn::LeakyReLU{0.125f})
      .add(nn::MaxPool2D{.size = 3, .stride = 2, .padding = 1, .ceil_mode = true})
      .add(nn::AvgPool2D{
          .size = 2, .stride = 1, .pads = nn::Padding{1, 0, 0, 1}, .count_include_pad = false})
      .add(nn::Clip{-0.5f, 0.75f})
      .add(nn::GlobalAvgPool2D{})
      .add(nn::Flatten{})
      .add(nn::Dense{4});
  model.set_parameter_values(nntest::random_parameters(model));
  const auto json = nn::architecture_json(model);
  for (const char* key : {"\"pads\": [", "\"ceil_mode\": true", "\"count_include_pad\": false",
                          "\"alpha\": 0.125", "\"min\": -0.5", "globalavgpool2d"}) {
    EXPECT_NE(json.find(key), std::string::npos) << key << " in " << json;
  }
  EXPECT_EQ(nn::model_from_json(ctx, json).summary(), model.summary());
  const auto x = nn::Tensor::from(ctx, {3, 2, 9, 8}, gpgpu::test::random_floats(3 * 144));
  nn::save_model(model, dir.path / "m");
  auto loaded = nn::load_model(ctx, dir.path / "m");
  EXPECT_EQ(loaded.summary(), model.summary());
  EXPECT_EQ(loaded.forward(x).to_vector(), model.forward(x).to_vector());

  expect_error<gpgpu::FormatError>(
      [&] {
        nn::model_from_json(ctx,
                            R"({"input": [4], "layers": [{"type": "clip", "min": 2, "max": 1}]})");
      },
      {"layer 0", "clip", "min must be below max"});
  expect_error<gpgpu::FormatError>(
      [&] {
        nn::model_from_json(ctx,
                            R"({"input": [4], "layers": [{"type": "leakyrelu", "alpha": -1}]})");
      },
      {"leakyrelu", "alpha must be >= 0"});
  expect_error<gpgpu::FormatError>(
      [&] {
        nn::model_from_json(
            ctx,
            R"({"input": [1, 6, 6], "layers": [{"type": "maxpool2d", "size": 2, "padding": 2}]})");
      },
      {"maxpool2d", "padding 2", "every window must cover some input"});
  expect_error<gpgpu::FormatError>(
      [&] {
        nn::model_from_json(
            ctx,
            R"({"input": [1, 6, 6], "layers": [{"type": "conv2d", "filters": 1, "pads": [1, 2]}]})");
      },
      {"layer 0", "\"pads\" must be [top, left, bottom, right]"});
}

TEST(NnErrors, WrongShapesAndSizesAreExplained) {
  auto& ctx = gpgpu::test::context();
  nn::Sequential model(ctx, {1, 6, 6});
  expect_error<gpgpu::ArgumentError>(
      [&] {
        model.add(nn::Conv2D{2, 7, 1, 0});
      },
      {"layer 0", "conv2d", "7x7", "(1, 6, 6)"});
  model.add(nn::Conv2D{2, 3, 1, 0}).add(nn::Flatten{}).add(nn::Dense{3});
  expect_error<gpgpu::SizeMismatchError>(
      [&] {
        model.forward(nn::Tensor::from(ctx, {2, 1, 5, 6}, std::vector<float>(60, 1.0f)));
      },
      {"(batch, 1, 6, 6)", "(2, 1, 5, 6)"});
  expect_error<gpgpu::SizeMismatchError>(
      [&] { model.set_parameter_values(std::vector<float>(5, 1.0f)); },
      {std::to_string(model.parameter_count()), "5 were given"});
  expect_error<gpgpu::Error>(
      [&] {
        model.backward(nn::Tensor::from(ctx, {2, 3}, std::vector<float>(6, 1.0f)));
      },
      {"forward(x, Mode::Train) first"});
  model.forward(nn::Tensor::from(ctx, {2, 1, 6, 6}, std::vector<float>(72, 1.0f)), nn::Mode::Train);
  expect_error<gpgpu::SizeMismatchError>(
      [&] {
        model.backward(nn::Tensor::from(ctx, {2, 4}, std::vector<float>(8, 1.0f)));
      },
      {"(2, 3)", "(2, 4)"});
  expect_error<gpgpu::Error>([&] { model.add(nn::ReLU{}); }, {"already has parameters"});
  expect_error<gpgpu::SizeMismatchError>(
      [&] {
        nn::Tensor::from(ctx, {2, 3}, std::vector<float>(5, 1.0f));
      },
      {"(2, 3)", "6 values", "5 were given"});
  TempDir dir;
  const nn::DeviceDataset device(ctx, write_dataset(dir.path, 10, 6, 6, 3));
  nn::TrainOptions too_large;
  too_large.batch = 11;
  expect_error<gpgpu::ArgumentError>([&] { nn::Trainer(model, device, too_large); },
                                     {"[1, 10]", "11"});
  const nn::DeviceDataset five_classes(ctx, write_dataset(dir.path, 10, 6, 6, 5));
  expect_error<gpgpu::ArgumentError>([&] { nn::evaluate(model, five_classes); },
                                     {"5 classes", "(3,)"});
  nn::Sequential other(ctx, {1, 5, 5});
  other.add(nn::Flatten{}).add(nn::Dense{5});
  expect_error<gpgpu::ArgumentError>([&] { nn::Trainer(other, device, {}); },
                                     {"(1, 6, 6)", "(1, 5, 5)"});
}

}  // namespace
