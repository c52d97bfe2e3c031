// The native results the browser tests compare with, computed fresh on this machine's
// native device (llvmpipe in CI) by the same C++ library:
//   seeds.json   the seven gpgpu.js samples (through gpgpu::js, the seeds' shaders and numbers)
//                and GPGPUtility's 128 x 128 squaring (fragment kernels), every output value;
//   nn/          with --model and --data: the first --images test images (pixels.u8, bytes),
//                the model's logits on the native default backend (compute, logits.f32),
//                and the float64 logits with their float32 error bounds (reference.f64,
//                bound.f64; tests/nn/reference.hpp derives them) for the first --bounded.
//
//   gpgpu_browser_reference OUT_DIR [--model DIR --data DIR --images N --bounded N]
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "gpgpu/gpgpu.hpp"
#include "gpgpu/nn.hpp"
#include "nn_pixels.hpp"
#include "reference.hpp"
#include "seed_shaders.hpp"

namespace fs = std::filesystem;
using Floats = std::vector<float>;

namespace {

nlohmann::json seed_results(const gpgpu::Context& ctx) {
  gpgpu::js::GPGPU gpgpu(ctx);
  nlohmann::json j;
  const Floats a6 = {10, 20, 30, 40, 50, 60}, b6 = {1, 2, 3, 4, 5, 6};
  Floats C(6), D(6);
  gpgpu.compute({"AddVec", seed::add_vec, {{"A", a6}, {"B", b6}, {"C", C}}});
  j["AddVec"] = {{"C", C}};
  gpgpu.compute({"AddMulVec", seed::add_mul_vec, {{"A", a6}, {"B", b6}, {"C", C}, {"D", D}}});
  j["AddMulVec"] = {{"C", C}, {"D", D}};
  Floats D2(2);
  gpgpu.compute({"AddDotVec", seed::add_dot_vec, {{"A", b6}, {"B", a6}, {"C", C}, {"D", D2}}});
  j["AddDotVec"] = {{"C", C}, {"D", D2}};
  gpgpu.compute({"UniMul", seed::uni_mul, {{"A", b6}, {"B", 3.0f}, {"C", C}}});
  j["UniMul"] = {{"C", C}};
  const Floats mat = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  gpgpu.compute({"UniMulMat", seed::uni_mul_mat, {{"A", b6}, {"B", mat}, {"C", C}}});
  j["UniMulMat"] = {{"C", C}};
  const Floats A = {1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15, 16, 17, 18};
  const Floats B = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  const Floats BT = {1, 3, 5, 7, 9, 11, 13, 15, 2, 4, 6, 8, 10, 12, 14, 16};
  Floats C4(4);
  gpgpu.compute({"TexMulMat",
                 seed::tex_mul_mat,
                 {{"zero", Floats(4)},
                  {"A", gpgpu.make_texture_info("float", {2, 8}, A)},
                  {"B", gpgpu.make_texture_info("float", {8, 2}, B)},
                  {"C", C4}}});
  j["TexMulMat"] = {{"C", C4}};
  gpgpu.compute({"TexMulMatVec4",
                 seed::tex_mul_mat_vec4,
                 {{"A", gpgpu.make_texture_info("vec4", {2, 2}, A)},
                  {"B", gpgpu.make_texture_info("vec4", {2, 2}, BT)},
                  {"C", C4}}});
  j["TexMulMatVec4"] = {{"C", C4}};
  // GPGPUtility's squaring: M rendered into a texture, then R = M^2 read back.
  const std::size_t n = 128;
  gpgpu::FragmentKernel init(ctx, seed::matrix_init, {}, "matrix init");
  gpgpu::FragmentKernel square(ctx, seed::matrix_square, {}, "matrix square");
  gpgpu::Texture m(ctx, gpgpu::TexelType::Float, {n, n});
  Floats r(n * n);
  init.run({{"m", m}});
  square.run({{"m", m}, {"r", r}}, n, n);
  j["MatrixSquare"] = {{"r", r}};
  return j;
}

template <class T>
void write_raw(const fs::path& path, const std::vector<T>& values) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(values.data()),
            static_cast<std::streamsize>(values.size() * sizeof(T)));
  if (!out) throw gpgpu::Error("cannot write " + path.string());
}

void nn_results(const gpgpu::Context& ctx, const fs::path& out, const std::string& model_dir,
                const std::string& data, std::size_t images, std::size_t bounded) {
  auto model = gpgpu::nn::load_model(ctx, model_dir);  // the native default: compute shaders
  const auto test = gpgpu::nn::load_idx_dataset(data, "t10k").first(images);
  const auto x = gpgpu::web::normalized_pixels(test.images, model.normalization());
  const std::size_t per = model.input_shape().size(), classes = model.output_shape().size();
  Floats logits;
  for (std::size_t first = 0; first < test.count; first += 500) {
    const std::size_t count = std::min<std::size_t>(500, test.count - first);
    const auto input =
        gpgpu::nn::Tensor::from(ctx, model.input_shape().with_batch(count),
                                std::span<const float>(x.data() + first * per, count * per));
    const auto y = model.forward(input).to_vector();
    logits.insert(logits.end(), y.begin(), y.end());
  }
  fs::create_directories(out);
  write_raw(out / "pixels.u8", test.images);
  write_raw(out / "labels.u8", test.labels);
  write_raw(out / "logits.f32", logits);
  // The float64 truth and its float32 bounds for the first `bounded` images.
  bounded = std::min(bounded, test.count);
  const auto flat = model.parameter_values();
  const auto trace = nnref::net_forward(
      model, bounded, nnref::Array::exact(Floats(x.begin(), x.begin() + bounded * per)), flat,
      false);
  write_raw(out / "reference.f64", trace.inputs.back().v);
  write_raw(out / "bound.f64", trace.inputs.back().e);
  nlohmann::json info = {{"images", test.count},
                         {"bounded", bounded},
                         {"classes", classes},
                         {"device", ctx.info().renderer}};
  std::ofstream(out / "info.json") << info.dump(1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: gpgpu_browser_reference OUT_DIR [--model DIR --data DIR --images N "
                 "--bounded N]\n";
    return 2;
  }
  const fs::path out = argv[1];
  std::string model, data;
  std::size_t images = 10000, bounded = 10000;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--model")
      model = value;
    else if (key == "--data")
      data = value;
    else if (key == "--images")
      images = std::stoul(value);
    else if (key == "--bounded")
      bounded = std::stoul(value);
    else {
      std::cerr << "unknown option " << key << "\n";
      return 2;
    }
  }
  try {
    gpgpu::Context ctx;
    fs::create_directories(out);
    std::ofstream(out / "seeds.json") << seed_results(ctx).dump();
    if (!model.empty()) nn_results(ctx, out / "nn", model, data, images, bounded);
    std::cout << "native references in " << out.string() << " (" << ctx.info().renderer << ")\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "gpgpu_browser_reference: " << e.what() << "\n";
    return 1;
  }
}
