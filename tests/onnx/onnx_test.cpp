// gpgpu::nn models through ONNX and back: every layer type and setting is written by
// save_onnx, read by load_onnx and gives bit-identical predictions on the compute, cpu and
// transform-feedback backends; the normalisation and class names travel as metadata;
// BatchNorm folding changes the layers but not the predictions beyond float32 rounding (the
// reference's bound); bad files get their own errors naming the file, node and operator; a
// write that fails leaves nothing behind. The operators against a float64 reference of
// their ONNX meaning are tests/python/test_nn_onnx.py's (graphs written by onnx.helper).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <onnx/onnx_pb.h>

#include "gpgpu/nn/onnx.hpp"
#include "nn_test_support.hpp"

namespace {

namespace fs = std::filesystem;
namespace nn = gpgpu::nn;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("gpgpu_onnx_test_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

template <class E>
void expect_error(const std::function<void()>& f, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (const E& e) {
    const std::string what = e.what();
    for (const auto& p : parts) EXPECT_NE(what.find(p), std::string::npos) << p << " in: " << what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "another exception: " << e.what();
  }
}

// Every layer type with its settings, in an order the shapes allow.
nn::Sequential every_layer(const gpgpu::Context& ctx) {
  nn::Sequential m(ctx, {2, 13, 12});
  m.add(nn::Conv2D{.filters = 4, .kernel = 3, .stride = 2, .pads = nn::Padding{0, 1, 2, 1}})
      .add(nn::BatchNorm{0.2f, 1e-3f})
      .add(nn::LeakyReLU{0.125f})
      .add(nn::MaxPool2D{.size = 3, .stride = 2, .padding = 1, .ceil_mode = true})
      .add(nn::Conv2D{.filters = 5, .kernel = 2, .padding = 1})
      .add(nn::Clip{-0.5f, 0.75f})
      .add(nn::AvgPool2D{
          .size = 2, .stride = 1, .pads = nn::Padding{1, 0, 0, 1}, .count_include_pad = false})
      .add(nn::Tanh{})
      .add(nn::AvgPool2D{.size = 2, .ceil_mode = true})
      .add(nn::GlobalAvgPool2D{})
      .add(nn::Flatten{})
      .add(nn::Dense{7})
      .add(nn::Sigmoid{})
      .add(nn::Dropout{0.25f})
      .add(nn::Dense{6})
      .add(nn::BatchNorm{})
      .add(nn::ReLU{})
      .add(nn::Dense{3})
      .add(nn::Softmax{});
  m.set_normalization({0.25f, 0.5f});
  m.set_class_names({"a", "b", "c"});
  return m;
}

class OnnxRoundTrip : public ::testing::TestWithParam<nntest::BackendConfig> {};

TEST_P(OnnxRoundTrip, EveryLayerComesBackIdentical) {
  auto& ctx = gpgpu::test::context();
  TempDir dir;
  auto model = every_layer(ctx);
  model.set_parameter_values(nntest::random_parameters(model));
  model.set_backend(GetParam().backend, GetParam().options);
  const auto path = dir.path / "every.onnx";
  nn::save_onnx(model, path);
  auto again = nn::load_onnx(ctx, path, {.fold_batchnorm = false});
  again.set_backend(GetParam().backend, GetParam().options);
  EXPECT_EQ(again.summary(), model.summary());
  EXPECT_EQ(again.parameter_values(), model.parameter_values());
  EXPECT_EQ(again.class_names(), model.class_names());
  EXPECT_EQ(again.normalization().mean, 0.25f);
  EXPECT_EQ(again.normalization().stddev, 0.5f);
  for (std::size_t batch : {1u, 5u}) {
    const auto x = nn::Tensor::from(ctx, model.input_shape().with_batch(batch),
                                    gpgpu::test::random_floats(batch * model.input_shape().size()));
    EXPECT_EQ(again.forward(x).to_vector(), model.forward(x).to_vector()) << "batch " << batch;
  }
  // load_any picks ONNX by the extension; the bytes are those save_onnx wrote.
  EXPECT_EQ(nn::load_any(ctx, path).input_shape(), model.input_shape());
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes, nn::onnx_bytes(model));
}

// With folding, each BatchNorm after a Conv2D or Dense goes into its weights: fewer layers,
// the same outputs to float32 rounding. The bound: the float64 reference's for the unfolded
// network, plus one rounding of each folded weight and bias, which moves a layer's output by
// at most 2 eps times the sum of its absolute terms; those sums are what the reference's
// own bounds are made of (at least (K + 2) eps of them), so twice the reference's bound
// covers both.
TEST_P(OnnxRoundTrip, FoldedBatchNormGivesTheSameOutputs) {
  auto& ctx = gpgpu::test::context();
  auto model = every_layer(ctx);
  const auto params = nntest::random_parameters(model);
  model.set_parameter_values(params);
  const auto bytes = nn::onnx_bytes(model);
  auto folded = nn::read_onnx(ctx, std::as_bytes(std::span(bytes.data(), bytes.size())));
  folded.set_backend(GetParam().backend, GetParam().options);
  EXPECT_EQ(folded.layers().size(), model.layers().size() - 2);
  const std::size_t batch = 3;
  const auto x = gpgpu::test::random_floats(batch * model.input_shape().size());
  auto want = nnref::net_forward(model, batch, nnref::Array::exact(x), params, false).inputs.back();
  for (auto& e : want.e) e *= 2;
  nntest::expect_within(
      folded.forward(nn::Tensor::from(ctx, model.input_shape().with_batch(batch), x)).to_vector(),
      want, "folded outputs");
}

INSTANTIATE_TEST_SUITE_P(Backends, OnnxRoundTrip,
                         ::testing::Values(nntest::all_backends()[0], nntest::all_backends()[2],
                                           nntest::all_backends()[3]),
                         nntest::config_name);

// The file's nodes: one per layer, in opset 13's spelling.
TEST(OnnxExport, WritesOneNodePerLayer) {
  auto& ctx = gpgpu::test::context();
  const auto bytes = nn::onnx_bytes(every_layer(ctx));
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  std::vector<std::string> ops;
  for (const auto& n : m.graph().node()) ops.push_back(n.op_type());
  EXPECT_EQ(ops,
            (std::vector<std::string>{"Conv", "BatchNormalization", "LeakyRelu", "MaxPool", "Conv",
                                      "Clip", "AveragePool", "Tanh", "AveragePool",
                                      "GlobalAveragePool", "Flatten", "Gemm", "Sigmoid", "Dropout",
                                      "Gemm", "BatchNormalization", "Relu", "Gemm", "Softmax"}));
  EXPECT_EQ(m.opset_import(0).version(), 13);
  EXPECT_EQ(m.graph().input(0).type().tensor_type().shape().dim(0).dim_param(), "batch");
}

// A write that fails leaves no file and no temporary behind; an existing file is replaced.
TEST(OnnxExport, WritesAtomically) {
  auto& ctx = gpgpu::test::context();
  TempDir dir;
  auto model = every_layer(ctx);
  const auto target = dir.path / "m.onnx";
  {
    std::ofstream old(target);
    old << "old";
  }
  nn::save_onnx(model, target);
  EXPECT_GT(fs::file_size(target), 1000u);
  fs::create_directories(dir.path / "taken.onnx" / "inside");  // a directory where the file goes
  expect_error<gpgpu::Error>([&] { nn::save_onnx(model, dir.path / "taken.onnx"); },
                             {"save_onnx", "taken.onnx"});
  std::size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir.path)) {
    ++entries;
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  }
  EXPECT_EQ(entries, 2u);
}

// --- errors ------------------------------------------------------------------------------

// A one-node model: x (batch, 4) -> op -> y.
onnx::ModelProto one_node(const std::string& op, const std::string& name) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  for (auto [vi, vname] : {std::pair{g->add_input(), "x"}, std::pair{g->add_output(), "y"}}) {
    vi->set_name(vname);
    auto* t = vi->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_param("N");
    t->mutable_shape()->add_dim()->set_dim_value(4);
  }
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  n->add_input("x");
  n->add_output("y");
  return m;
}

nn::Sequential read(const onnx::ModelProto& m, const std::string& origin = "test.onnx") {
  std::string bytes;
  m.SerializeToString(&bytes);
  return nn::read_onnx(gpgpu::test::context(), std::as_bytes(std::span(bytes.data(), bytes.size())),
                       origin);
}

TEST(OnnxErrors, ATruncatedFileIsAFormatErrorNamingIt) {
  auto& ctx = gpgpu::test::context();
  TempDir dir;
  const auto bytes = nn::onnx_bytes(every_layer(ctx));
  const auto path = dir.path / "cut.onnx";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  }
  expect_error<gpgpu::FormatError>([&] { nn::load_onnx(ctx, path); }, {"cut.onnx"});
  expect_error<gpgpu::Error>([&] { nn::load_onnx(ctx, dir.path / "none.onnx"); },
                             {"none.onnx", "no such file"});
}

TEST(OnnxErrors, AnUnknownOperatorNamesTheNodeAndOperator) {
  expect_error<gpgpu::UnsupportedError>([] { read(one_node("Erf", "odd")); },
                                        {"test.onnx", "node 0 'odd' (Erf)", "not supported"});
  auto custom = one_node("Relu", "mine");
  custom.mutable_graph()->mutable_node(0)->set_domain("com.example");
  custom.add_opset_import()->set_domain("com.example");
  expect_error<gpgpu::UnsupportedError>([&] { read(custom); },
                                        {"node 0 'mine' (Relu)", "domain 'com.example'"});
}

TEST(OnnxErrors, AWrongAttributeNamesTheNodeAndAttribute) {
  // An attribute LeakyRelu does not have: onnx::checker refuses the file.
  auto unknown = one_node("LeakyRelu", "leaky");
  auto* a = unknown.mutable_graph()->mutable_node(0)->add_attribute();
  a->set_name("beta");
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(0.5f);
  expect_error<gpgpu::FormatError>([&] { read(unknown); }, {"test.onnx", "beta"});
  // alpha of the wrong type.
  auto typed = one_node("LeakyRelu", "leaky");
  a = typed.mutable_graph()->mutable_node(0)->add_attribute();
  a->set_name("alpha");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(1);
  expect_error<gpgpu::FormatError>([&] { read(typed); }, {"test.onnx", "alpha"});
  // A value gpgpu does not take: a negative slope.
  auto negative = one_node("LeakyRelu", "leaky");
  a = negative.mutable_graph()->mutable_node(0)->add_attribute();
  a->set_name("alpha");
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(-0.5f);
  expect_error<gpgpu::UnsupportedError>([&] { read(negative); },
                                        {"node 0 'leaky' (LeakyRelu)", "alpha must be >= 0"});
}

// The fuzzing corpus (tests/fuzz/make_onnx_seeds.py): the good seeds load, the bad ones fail
// with a gpgpu::Error, none crashes (this runs under the sanitizers in scripts/test.sh).
TEST(OnnxErrors, TheFuzzingCorpusLoadsOrFailsCleanly) {
  std::size_t good = 0, bad = 0;
  for (const auto& entry : fs::directory_iterator(GPGPU_ONNX_CORPUS)) {
    const auto name = entry.path().filename().string();
    SCOPED_TRACE(name);
    try {
      nn::load_onnx(gpgpu::test::context(), entry.path());
      EXPECT_EQ(name.rfind("bad-", 0), std::string::npos) << "a defective seed was accepted";
      ++good;
    } catch (const gpgpu::Error& e) {
      EXPECT_EQ(name.rfind("good-", 0), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
      ++bad;
    }
  }
  EXPECT_GE(good, 7u);
  EXPECT_GE(bad, 7u);
}

TEST(OnnxErrors, GraphsOutsideAChainAreRefused) {
  auto two_outputs = one_node("Relu", "r");
  *two_outputs.mutable_graph()->add_output() = two_outputs.graph().input(0);
  expect_error<gpgpu::UnsupportedError>([&] { read(two_outputs); }, {"2 outputs"});
  auto empty = one_node("Identity", "i");
  expect_error<gpgpu::UnsupportedError>([&] { read(empty); }, {"no layers"});
}

}  // namespace
