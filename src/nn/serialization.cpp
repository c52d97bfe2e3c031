// Saving and loading models: model.json (architecture, normalisation, classes, parameter
// list) and one .npy per parameter, in a directory or a .npz archive; networks from JSON.
#include "gpgpu/nn/serialization.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpgpu/error.hpp"
#include "gpgpu/npy.hpp"
#include "model_state.hpp"
#include "zip.hpp"

namespace gpgpu::nn {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr int format_version = 1;

std::string init_name(Init init) {
  return init == Init::He ? "he" : init == Init::Xavier ? "xavier" : "auto";
}

// "padding": p when every side has p, else "pads": [top, left, bottom, right]; nothing
// for pools without padding (the keys older readers do not know stay out of their files).
void padding_to_json(json& j, const Padding& p, bool always) {
  if (p.top == p.left && p.top == p.bottom && p.top == p.right) {
    if (always || p.top != 0) j["padding"] = p.top;
  } else {
    j["pads"] = {p.top, p.left, p.bottom, p.right};
  }
}

template <class Pool>
void pool_to_json(json& j, const Pool& p) {
  j["size"] = p.size;
  j["stride"] = p.stride == 0 ? p.size : p.stride;
  padding_to_json(j, padding_of(p), false);
  if (p.ceil_mode) j["ceil_mode"] = true;
}

json layer_to_json(const Layer& layer) {
  json j{{"type", std::string(layer_type(layer))}};
  if (const auto* d = std::get_if<Dense>(&layer)) {
    j["units"] = d->units;
    j["init"] = init_name(d->init);
  } else if (const auto* c = std::get_if<Conv2D>(&layer)) {
    j["filters"] = c->filters;
    j["kernel"] = c->kernel;
    j["stride"] = c->stride;
    padding_to_json(j, padding_of(*c), true);
    j["init"] = init_name(c->init);
  } else if (const auto* m = std::get_if<MaxPool2D>(&layer)) {
    pool_to_json(j, *m);
  } else if (const auto* a = std::get_if<AvgPool2D>(&layer)) {
    pool_to_json(j, *a);
    if (!a->count_include_pad) j["count_include_pad"] = false;
  } else if (const auto* l = std::get_if<LeakyReLU>(&layer)) {
    j["alpha"] = l->alpha;
  } else if (const auto* cl = std::get_if<Clip>(&layer)) {
    j["min"] = cl->min;
    j["max"] = cl->max;
  } else if (const auto* d2 = std::get_if<Dropout>(&layer)) {
    j["rate"] = d2->rate;
  } else if (const auto* b = std::get_if<BatchNorm>(&layer)) {
    j["momentum"] = b->momentum;
    j["epsilon"] = b->epsilon;
  }
  return j;
}

// Reads the keys of one layer object, rejecting unknown ones and wrong types.
class LayerReader {
 public:
  LayerReader(const json& j, std::size_t index, std::string_view origin)
      : j_(j), where_(fmt::format("{}: layer {}", origin, index)) {
    if (!j.is_object()) throw FormatError(where_ + " must be a JSON object");
    if (!j.contains("type") || !j["type"].is_string())
      throw FormatError(where_ + " needs a \"type\" string");
    type_ = j["type"].get<std::string>();
    used_.insert("type");
  }
  const std::string& type() const { return type_; }
  std::size_t size(const char* key, std::size_t fallback, bool positive = true) {
    used_.insert(key);
    if (!j_.contains(key)) return fallback;
    const auto& v = j_[key];
    if (!v.is_number_integer() || v.get<long long>() < (positive ? 1 : 0)) {
      throw FormatError(fmt::format("{} ({}): \"{}\" must be an integer >= {}; got {}", where_,
                                    type_, key, positive ? 1 : 0, v.dump()));
    }
    return v.get<std::size_t>();
  }
  float number(const char* key, float fallback) {
    used_.insert(key);
    if (!j_.contains(key)) return fallback;
    if (!j_[key].is_number()) {
      throw FormatError(fmt::format("{} ({}): \"{}\" must be a number; got {}", where_, type_, key,
                                    j_[key].dump()));
    }
    return j_[key].get<float>();
  }
  bool flag(const char* key, bool fallback) {
    used_.insert(key);
    if (!j_.contains(key)) return fallback;
    if (!j_[key].is_boolean()) {
      throw FormatError(fmt::format("{} ({}): \"{}\" must be true or false; got {}", where_, type_,
                                    key, j_[key].dump()));
    }
    return j_[key].get<bool>();
  }
  // "pads": [top, left, bottom, right] of integers >= 0, if present.
  std::optional<Padding> pads() {
    used_.insert("pads");
    if (!j_.contains("pads")) return std::nullopt;
    const auto& v = j_["pads"];
    const bool ok =
        v.is_array() && v.size() == 4 && std::all_of(v.begin(), v.end(), [](const json& e) {
          return e.is_number_integer() && e.get<long long>() >= 0;
        });
    if (!ok) {
      throw FormatError(fmt::format(
          "{} ({}): \"pads\" must be [top, left, bottom, right] of integers >= 0; got {}", where_,
          type_, v.dump()));
    }
    return Padding{v[0].get<std::size_t>(), v[1].get<std::size_t>(), v[2].get<std::size_t>(),
                   v[3].get<std::size_t>()};
  }
  Init init() {
    used_.insert("init");
    if (!j_.contains("init")) return Init::Auto;
    const auto& v = j_["init"];
    if (v == "he") return Init::He;
    if (v == "xavier") return Init::Xavier;
    if (v == "auto") return Init::Auto;
    throw FormatError(
        fmt::format("{} ({}): \"init\" must be \"auto\", \"he\" or \"xavier\"; got {}", where_,
                    type_, v.dump()));
  }
  void finish() const {
    for (const auto& [key, value] : j_.items()) {
      if (!used_.count(key)) {
        throw FormatError(fmt::format("{} ({}): unknown key \"{}\"", where_, type_, key));
      }
    }
  }
  const std::string& where() const { return where_; }

 private:
  const json& j_;
  std::string where_, type_;
  std::set<std::string> used_;
};

template <class Pool>
Pool pool_from_json(LayerReader& r) {
  Pool p;
  p.size = r.size("size", 2);
  p.stride = r.size("stride", p.size);
  p.padding = r.size("padding", 0, false);
  p.pads = r.pads();
  p.ceil_mode = r.flag("ceil_mode", false);
  return p;
}

Layer layer_from_json(const json& j, std::size_t index, std::string_view origin) {
  LayerReader r(j, index, origin);
  Layer layer;
  const auto& t = r.type();
  if (t == "dense") {
    const auto units = r.size("units", 0);
    layer = Dense{units, r.init()};
  } else if (t == "conv2d") {
    Conv2D c;
    c.filters = r.size("filters", 0);
    c.kernel = r.size("kernel", 3);
    c.stride = r.size("stride", 1);
    c.padding = r.size("padding", 0, false);
    c.pads = r.pads();
    c.init = r.init();
    layer = c;
  } else if (t == "maxpool2d") {
    layer = pool_from_json<MaxPool2D>(r);
  } else if (t == "avgpool2d") {
    auto pool = pool_from_json<AvgPool2D>(r);
    pool.count_include_pad = r.flag("count_include_pad", true);
    layer = pool;
  } else if (t == "globalavgpool2d") {
    layer = GlobalAvgPool2D{};
  } else if (t == "leakyrelu") {
    layer = LeakyReLU{r.number("alpha", 0.01f)};
  } else if (t == "clip") {
    const float min = r.number("min", 0.0f);
    layer = Clip{min, r.number("max", 6.0f)};
  } else if (t == "dropout") {
    layer = Dropout{r.number("rate", 0.5f)};
  } else if (t == "batchnorm") {
    const float momentum = r.number("momentum", 0.1f);
    layer = BatchNorm{momentum, r.number("epsilon", 1e-5f)};
  } else if (t == "relu") {
    layer = ReLU{};
  } else if (t == "sigmoid") {
    layer = Sigmoid{};
  } else if (t == "tanh") {
    layer = Tanh{};
  } else if (t == "flatten") {
    layer = Flatten{};
  } else if (t == "softmax") {
    layer = Softmax{};
  } else {
    throw FormatError(
        fmt::format("{}: unknown type \"{}\"; known: dense, conv2d, maxpool2d, avgpool2d, "
                    "globalavgpool2d, relu, leakyrelu, clip, sigmoid, tanh, flatten, dropout, "
                    "batchnorm, softmax",
                    r.where(), t));
  }
  r.finish();
  return layer;
}

json architecture(const Sequential& model) {
  json j;
  j["format"] = "gpgpu-nn";
  j["version"] = format_version;
  j["input"] = model.input_shape().dims();
  j["layers"] = json::array();
  for (const auto& l : model.layers()) j["layers"].push_back(layer_to_json(l));
  j["normalization"] = {{"mean", model.normalization().mean},
                        {"std", model.normalization().stddev}};
  if (!model.class_names().empty()) j["classes"] = model.class_names();
  return j;
}

json with_parameters(json j, const Sequential& model) {
  j["parameters"] = json::array();
  for (const auto& p : model.parameters()) {
    j["parameters"].push_back(
        {{"key", p.key()}, {"shape", p.shape.dims()}, {"trainable", p.trainable}});
  }
  return j;
}

std::vector<std::byte> to_bytes(const std::string& text) {
  std::vector<std::byte> bytes(text.size());
  std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}

// The model.json text and one serialized .npy per parameter, in parameters() order.
std::vector<detail::ZipEntry> model_files(const Sequential& model) {
  std::vector<detail::ZipEntry> files;
  files.push_back(
      {"model.json", to_bytes(with_parameters(architecture(model), model).dump(2) + "\n")});
  const auto values = model.parameter_values();
  for (const auto& p : model.parameters()) {
    const auto array = npy::make<float>(
        p.shape.dims(), std::span<const float>(values).subspan(p.offset, p.shape.size()));
    files.push_back({p.key() + ".npy", npy::serialize(array)});
  }
  return files;
}

void write_file(const fs::path& path, std::span<const std::byte> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw Error(fmt::format("cannot write {}", path.string()));
}

std::vector<std::byte> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot read {}: no such file", path.string()));
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

bool is_npz(const fs::path& path) {
  return path.extension() == ".npz";
}

fs::path temporary_beside(const fs::path& path, const char* what) {
  return path.parent_path() / fmt::format(".{}.{}-{}", path.filename().string(), what, ::getpid());
}

// Replaces `path` by the finished `temporary` (a directory or file) as atomically as the
// file system allows: the old model is moved aside first and removed last.
void move_into_place(const fs::path& temporary, const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    fs::rename(temporary, path);
    return;
  }
  if (fs::is_directory(path) && !fs::exists(path / "model.json") && !fs::is_empty(path)) {
    fs::remove_all(temporary, ec);
    throw Error(fmt::format(
        "save_model: {} exists and is not a saved model (no model.json); choose another "
        "path or remove it",
        path.string()));
  }
  const auto old = temporary_beside(path, "old");
  fs::rename(path, old);
  fs::rename(temporary, path);
  fs::remove_all(old, ec);
}

Sequential model_from(const Context& context, const json& j, std::string_view origin) {
  if (!j.is_object())
    throw FormatError(fmt::format("{}: the network description must be a JSON object", origin));
  if (j.contains("format") && j["format"] != "gpgpu-nn") {
    throw FormatError(
        fmt::format("{}: \"format\" is {}, not \"gpgpu-nn\"", origin, j["format"].dump()));
  }
  if (j.contains("version") &&
      (!j["version"].is_number_integer() || j["version"].get<int>() > format_version)) {
    throw FormatError(fmt::format("{}: format version {} is newer than this gpgpu reads ({})",
                                  origin, j["version"].dump(), format_version));
  }
  if (!j.contains("input") || !j["input"].is_array()) {
    throw FormatError(
        fmt::format("{}: \"input\" must be the sample shape, e.g. [1, 28, 28]", origin));
  }
  std::vector<std::size_t> dims;
  for (const auto& d : j["input"]) {
    if (!d.is_number_integer() || d.get<long long>() < 1) {
      throw FormatError(fmt::format("{}: \"input\" must hold positive integers; got {}", origin,
                                    j["input"].dump()));
    }
    dims.push_back(d.get<std::size_t>());
  }
  if (!j.contains("layers") || !j["layers"].is_array() || j["layers"].empty()) {
    throw FormatError(fmt::format("{}: \"layers\" must be a non-empty array", origin));
  }
  Sequential model(context, Shape(dims));
  for (std::size_t i = 0; i < j["layers"].size(); ++i) {
    try {
      model.add(layer_from_json(j["layers"][i], i, origin));
    } catch (const FormatError&) {
      throw;
    } catch (const ArgumentError& e) {
      throw FormatError(fmt::format("{}: {}", origin, e.what()));
    }
  }
  if (j.contains("normalization")) {
    const auto& n = j["normalization"];
    if (!n.is_object() || !n.contains("mean") || !n.contains("std") || !n["mean"].is_number() ||
        !n["std"].is_number() || !(n["std"].get<float>() > 0.0f)) {
      throw FormatError(
          fmt::format("{}: \"normalization\" must be {{\"mean\": m, \"std\": s > 0}}", origin));
    }
    model.set_normalization({n["mean"].get<float>(), n["std"].get<float>()});
  }
  if (j.contains("classes")) {
    if (!j["classes"].is_array())
      throw FormatError(fmt::format("{}: \"classes\" must be an array of names", origin));
    std::vector<std::string> names;
    for (const auto& c : j["classes"]) {
      if (!c.is_string())
        throw FormatError(fmt::format("{}: \"classes\" must hold strings", origin));
      names.push_back(c.get<std::string>());
    }
    model.set_class_names(std::move(names));
  }
  return model;
}

json parse_json(std::span<const std::byte> bytes, std::string_view origin) {
  try {
    return json::parse(reinterpret_cast<const char*>(bytes.data()),
                       reinterpret_cast<const char*>(bytes.data()) + bytes.size());
  } catch (const json::parse_error& e) {
    throw FormatError(fmt::format("{}: not valid JSON ({})", origin, e.what()));
  }
}

// Fills the model's parameters from the named .npy files, checking each against model.json
// and the layout the layers imply.
void load_parameters(Sequential& model, const json& j,
                     const std::map<std::string, std::vector<std::byte>>& files,
                     const std::string& origin) {
  std::vector<float> values(model.parameter_count());
  for (const auto& p : model.parameters()) {
    const std::string name = p.key() + ".npy";
    const auto it = files.find(name);
    if (it == files.end()) {
      throw FormatError(fmt::format("{}: {} is missing (parameter {} of shape {})", origin, name,
                                    p.key(), p.shape.to_string()));
    }
    const auto array = npy::parse(it->second, origin + "/" + name);
    if (array.dtype != npy::DType::Float32 || array.shape != p.shape.dims()) {
      throw FormatError(fmt::format("{}/{}: expected float32 {}, found {} ({})", origin, name,
                                    p.shape.to_string(), npy::dtype_name(array.dtype),
                                    Shape(array.shape).to_string()));
    }
    const auto v = array.view<float>();
    std::copy(v.begin(), v.end(), values.begin() + static_cast<std::ptrdiff_t>(p.offset));
  }
  if (j.contains("parameters") && j["parameters"].is_array() &&
      j["parameters"].size() != model.parameters().size()) {
    throw FormatError(fmt::format("{}: model.json lists {} parameters but the layers have {}",
                                  origin, j["parameters"].size(), model.parameters().size()));
  }
  model.set_parameter_values(values);
}

}  // namespace

std::string architecture_json(const Sequential& model) {
  return architecture(model).dump(2);
}

Sequential model_from_json(const Context& context, std::string_view text, std::string_view origin) {
  return model_from(context, parse_json(std::as_bytes(std::span(text.data(), text.size())), origin),
                    origin);
}

Sequential load_architecture(const Context& context, const fs::path& json_file) {
  return model_from(context, parse_json(read_file(json_file), json_file.string()),
                    json_file.string());
}

void save_model(const Sequential& model, const fs::path& path) {
  if (path.empty()) throw ArgumentError("save_model: empty path");
  const auto files = model_files(model);
  if (!path.parent_path().empty()) fs::create_directories(path.parent_path());
  const auto temporary = temporary_beside(path, "tmp");
  std::error_code ec;
  fs::remove_all(temporary, ec);
  try {
    if (is_npz(path)) {
      write_file(temporary, detail::write_zip(files));
    } else {
      fs::create_directory(temporary);
      for (const auto& f : files) write_file(temporary / f.name, f.data);
    }
    move_into_place(temporary, path);
  } catch (...) {
    fs::remove_all(temporary, ec);
    throw;
  }
}

Sequential load_model(const Context& context, const fs::path& path) {
  std::map<std::string, std::vector<std::byte>> files;
  const std::string origin = path.string();
  if (is_npz(path)) {
    for (auto& e : detail::read_zip(read_file(path), origin)) files[e.name] = std::move(e.data);
  } else {
    if (!fs::is_directory(path))
      throw Error(fmt::format("load_model: {} is not a directory or .npz file", origin));
    for (const auto& entry : fs::directory_iterator(path)) {
      if (entry.is_regular_file())
        files[entry.path().filename().string()] = read_file(entry.path());
    }
  }
  const auto it = files.find("model.json");
  if (it == files.end())
    throw FormatError(fmt::format("{}: model.json is missing; not a saved model", origin));
  const json j = parse_json(it->second, origin + "/model.json");
  Sequential model = model_from(context, j, origin + "/model.json");
  load_parameters(model, j, files, origin);
  return model;
}

}  // namespace gpgpu::nn
