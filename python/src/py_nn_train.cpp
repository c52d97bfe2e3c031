// Sequential.train, predict, classify and evaluate from NumPy arrays: float32 samples through
// nn::ArrayTrainer / nn::predict (no copy of the caller's array), uint8 images through the
// device-resident data set and nn::Trainer that `gpgpu train` uses. The GIL is released while
// the model runs; the progress bar and callbacks take it back.
#include <unistd.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpgpu/error.hpp"
#include "py_nn.hpp"

namespace gpgpu::python {

namespace {

std::string shape_text(const nn::Shape& s) {
  return s.to_string();
}

// Checks that `a` holds samples of the model's input shape: (N, *input) — or (N, H, W) for a
// one-channel (1, H, W) input — and returns N.
std::size_t sample_count(const py::array& a, const nn::Shape& input, const std::string& what) {
  std::vector<std::size_t> dims(a.shape(), a.shape() + a.ndim());
  const bool one_channel = input.rank() == 3 && input[0] == 1 && dims.size() == 3 &&
                           dims[1] == input[1] && dims[2] == input[2];
  const bool full = dims.size() == input.rank() + 1 &&
                    nn::Shape(std::vector<std::size_t>(dims.begin() + 1, dims.end())) == input;
  if (dims.empty() || dims[0] == 0 || (!one_channel && !full)) {
    throw SizeMismatchError(
        fmt::format("{}: the model takes samples of {} as an array (N, {}){}; {} was given", what,
                    shape_text(input), fmt::join(input.dims(), ", "),
                    input.rank() == 3 && input[0] == 1 ? " or (N, H, W)" : "", describe_value(a)));
  }
  return dims[0];
}

// Samples as the model's input: a float32 array's own memory, or uint8 images normalised.
struct Samples {
  py::array array;               // keeps the caller's (or the converted) array alive
  std::vector<float> converted;  // uint8 images, normalised
  std::span<const float> values;
  std::size_t count = 0;
  bool bytes = false;
};

Samples samples_of(const py::object& x, const nn::Sequential& model, bool copy,
                   const std::string& what) {
  if (!py::isinstance<py::array>(x) && !copy) {
    throw TypeMismatchError(what +
                            ": x must be a NumPy array (float32 samples or uint8 images); "
                            "pass copy=True to convert " +
                            describe_value(x));
  }
  py::array a = numpy().attr("asarray")(x);
  Samples s;
  s.count = sample_count(a, model.input_shape(), what);
  if (is_uint8(a)) {
    a = numpy().attr("ascontiguousarray")(a);
    const auto* p = static_cast<const std::uint8_t*>(a.data());
    const auto n = model.normalization();
    s.converted.resize(static_cast<std::size_t>(a.size()));
    for (std::size_t i = 0; i < s.converted.size(); ++i) {
      s.converted[i] = (static_cast<float>(p[i]) / 255.0f - n.mean) / n.stddev;
    }
    s.values = s.converted;
    s.bytes = true;
  } else {
    if (!copy && element_type_of(a.dtype()) != ElementType::Float32) {
      throw TypeMismatchError(what + ": x must hold float32 samples or uint8 images; " +
                              describe_value(a) +
                              " was given: convert it with .astype(np.float32) or pass copy=True");
    }
    a = checked_array(a, ElementType::Float32, copy, what + ": x");
    s.values = {static_cast<const float*>(a.data()), static_cast<std::size_t>(a.size())};
  }
  s.array = a;
  return s;
}

// N integer labels, each below the model's number of outputs.
std::vector<int> labels_of(const py::object& y, std::size_t count, const nn::Sequential& model,
                           const std::string& what) {
  const nn::Shape out = model.output_shape();
  const std::size_t classes = out.rank() == 1 ? out[0] : 0;
  const py::array a = numpy().attr("asarray")(y);
  const char kind = a.dtype().kind();
  if ((kind != 'i' && kind != 'u') || a.ndim() != 1 ||
      static_cast<std::size_t>(a.shape(0)) != count) {
    throw TypeMismatchError(
        fmt::format("{}: y must be {} integer labels, a 1-D array; {} was given", what, count,
                    describe_value(a)));
  }
  const py::array wide = numpy().attr("ascontiguousarray")(a, "int64");
  const auto* p = static_cast<const std::int64_t*>(wide.data());
  std::vector<int> labels(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (p[i] < 0 || static_cast<std::uint64_t>(p[i]) >= classes) {
      throw ArgumentError(
          fmt::format("{}: label {} of sample {} is outside [0, {}) (the model's "
                      "outputs {})",
                      what, p[i], i, classes, out.to_string()));
    }
    labels[i] = static_cast<int>(p[i]);
  }
  return labels;
}

// uint8 images as a Dataset for the device (the path `gpgpu train` takes).
nn::Dataset dataset_of(const Samples& s, const std::vector<int>& labels,
                       const nn::Sequential& model) {
  nn::Dataset d;
  const nn::Shape in = model.input_shape();
  const auto* p = static_cast<const std::uint8_t*>(s.array.data());
  d.images.assign(p, p + s.array.size());
  d.count = s.count;
  d.channels = in[0], d.height = in[1], d.width = in[2];
  int top = 1;
  for (const int l : labels) {  // below the model's outputs (labels_of), at most 255 here
    if (l > 255) throw ArgumentError("train: uint8 images take labels below 256");
    top = std::max(top, l);
    d.labels.push_back(static_cast<std::uint8_t>(l));
  }
  d.classes = static_cast<std::size_t>(top) + 1;
  d.name = "NumPy images";
  return d;
}

struct TrainArgs {
  std::size_t epochs = 1;
  nn::TrainOptions options;
  py::object validation, progress, callback;
};

// The per-report hook: draws the bar (as `gpgpu train` does) and calls the user's callback,
// holding the GIL; a KeyboardInterrupt or a callback's exception stops training there.
struct Reporter {
  const TrainArgs& args;
  bool bar = false;
  void operator()(const nn::Progress& p) const {
    py::gil_scoped_acquire locked;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (bar) {
      py::module_::import("sys").attr("stderr").attr("write")("\r" +
                                                              nn::progress_line(p, args.epochs));
    }
    if (!args.callback.is_none()) {
      py::dict d;
      d["epoch"] = p.epoch, d["step"] = p.step, d["steps"] = p.steps, d["loss"] = p.loss;
      d["images_per_second"] = p.images_per_second, d["seconds"] = p.seconds;
      args.callback(d);
    }
  }
};

bool wants_bar(const py::object& progress) {
  if (!progress.is_none()) return progress.cast<bool>();
  return py::module_::import("sys").attr("stderr").attr("isatty")().cast<bool>();
}

py::dict evaluation_dict(const nn::Evaluation& e) {
  py::dict d;
  d["loss"] = e.stats.mean_loss();
  d["accuracy"] = e.accuracy();
  d["count"] = e.stats.count;
  py::array predictions =
      new_array(ElementType::Int32, {static_cast<py::ssize_t>(e.predictions.size())});
  std::copy(e.predictions.begin(), e.predictions.end(),
            static_cast<std::int32_t*>(predictions.mutable_data()));
  d["predictions"] = predictions;
  const auto k = static_cast<py::ssize_t>(e.classes);
  py::array confusion = numpy().attr("zeros")(py::make_tuple(k, k), "int64");
  auto* c = static_cast<std::int64_t*>(confusion.mutable_data());
  for (std::size_t i = 0; i < e.confusion.size(); ++i)
    c[i] = static_cast<std::int64_t>(e.confusion[i]);
  d["confusion"] = confusion;
  d["seconds"] = e.seconds;
  return d;
}

nn::Evaluation evaluate_samples(nn::Sequential& model, const Samples& s,
                                const std::vector<int>& labels, std::size_t batch) {
  if (s.bytes) {
    // The device-resident path (as `gpgpu predict --data`): normalised by the gather kernel.
    py::gil_scoped_release unlocked;
    nn::Dataset d;  // built without the GIL: a plain copy
    const nn::Shape in = model.input_shape();
    const auto* p = static_cast<const std::uint8_t*>(s.array.data());
    d.images.assign(p, p + s.count * in.size());
    d.count = s.count, d.channels = in[0], d.height = in[1], d.width = in[2];
    for (const int l : labels) d.labels.push_back(static_cast<std::uint8_t>(l));
    d.classes = model.output_shape()[0];
    nn::DeviceDataset device(model.context(), d);
    return nn::evaluate(model, device, batch);
  }
  py::gil_scoped_release unlocked;
  return nn::evaluate(model, s.values, labels, batch);
}

py::dict epoch_record(const nn::EpochResult& r, std::size_t batch) {
  py::dict d;
  d["epoch"] = r.epoch;
  d["loss"] = r.stats.mean_loss();
  d["accuracy"] = r.stats.accuracy();
  d["seconds"] = r.seconds;
  d["images_per_second"] = r.seconds > 0 ? static_cast<double>(r.steps * batch) / r.seconds : 0.0;
  d["learning_rate"] = r.learning_rate;
  d["steps"] = r.steps;
  return d;
}

void print_epoch(const py::dict& d, std::size_t epochs) {
  std::string line =
      fmt::format("epoch {:>3}/{}  loss {:.4f}  acc {:6.2f}%", d["epoch"].cast<std::size_t>() + 1,
                  epochs, d["loss"].cast<double>(), 100 * d["accuracy"].cast<double>());
  if (d.contains("val_loss")) {
    line += fmt::format("  val loss {:.4f}  val acc {:6.2f}%", d["val_loss"].cast<double>(),
                        100 * d["val_accuracy"].cast<double>());
  }
  line += fmt::format("  {:.2f} s ({:.0f} img/s)", d["seconds"].cast<double>(),
                      d["images_per_second"].cast<double>());
  py::module_::import("sys").attr("stderr").attr("write")("\r" + std::string(100, ' ') + "\r" +
                                                          line + "\n");
}

py::list train(PyModel& p, const py::object& x, const py::object& y, std::size_t epochs,
               const py::object& batch, const py::object& optimizer,
               const py::object& learning_rate, const std::string& schedule, std::uint64_t seed,
               const py::object& validation, const py::object& progress, const py::object& callback,
               bool augment, std::size_t limit_steps, std::size_t report_every, bool copy) {
  auto& model = p.use();
  const std::string what = "Sequential.train";
  const Samples s = samples_of(x, model, copy, what);
  const auto labels = labels_of(y, s.count, model, what);
  TrainArgs a;
  a.epochs = epochs;
  a.options = p.recipe.value_or(nn::TrainOptions{});
  if (!p.recipe) a.options.optimizer = nn::Adam{}, a.options.augmentation = {};
  if (!batch.is_none()) a.options.batch = batch.cast<std::size_t>();
  if (!optimizer.is_none()) a.options.optimizer = optimizer_from(optimizer);
  if (!learning_rate.is_none()) {
    a.options.optimizer = nn::with_learning_rate(a.options.optimizer, learning_rate.cast<float>());
  }
  const auto parsed = nn::parse_schedule(schedule);
  if (!parsed)
    throw ArgumentError(what + ": schedule must be 'constant', 'cosine' or 'step'; got '" +
                        schedule + "'");
  a.options.schedule = *parsed;
  a.options.epochs = epochs;
  a.options.seed = seed;
  a.options.limit_steps = limit_steps;
  a.options.report_every =
      report_every > 0
          ? report_every
          : std::max<std::size_t>(1, s.count / std::max<std::size_t>(a.options.batch, 1) / 50);
  if (augment && !s.bytes)
    throw ArgumentError(
        what +
        ": augment=True needs uint8 images (flips and shifts run on the device's byte images)");
  a.options.augmentation =
      augment ? nn::Augmentation{.flip = true, .shift = 2} : nn::Augmentation{};
  a.validation = validation;
  a.callback = callback;
  std::optional<Samples> val;
  std::vector<int> val_labels;
  if (!validation.is_none()) {
    const auto pair = validation.cast<py::tuple>();
    if (pair.size() != 2) throw ArgumentError(what + ": validation must be a pair (x, y)");
    val = samples_of(pair[0], model, copy, what + " validation");
    val_labels = labels_of(pair[1], val->count, model, what + " validation");
  }
  const Reporter reporter{a, wants_bar(progress)};
  py::list history;
  // Built once: the device copy of uint8 images, or the trainer over the float samples.
  std::optional<nn::DeviceDataset> device;
  std::optional<nn::Trainer> byte_trainer;
  std::optional<nn::ArrayTrainer> float_trainer;
  if (s.bytes) {
    nn::Dataset d = dataset_of(s, labels, model);
    py::gil_scoped_release unlocked;
    device.emplace(model.context(), d);
    byte_trainer.emplace(model, *device, a.options);
  } else {
    py::gil_scoped_release unlocked;
    float_trainer.emplace(model, s.values, labels, a.options);
  }
  for (std::size_t e = 0; e < epochs; ++e) {
    nn::EpochResult r;
    {
      py::gil_scoped_release unlocked;
      r = byte_trainer ? byte_trainer->run_epoch(reporter) : float_trainer->run_epoch(reporter);
    }
    py::dict record = epoch_record(r, a.options.batch);
    if (val) {
      const auto ev = evaluate_samples(model, *val, val_labels, 1000);
      record["val_loss"] = ev.stats.mean_loss();
      record["val_accuracy"] = ev.accuracy();
    }
    if (reporter.bar) print_epoch(record, epochs);
    history.append(record);
  }
  return history;
}

py::array predict(PyModel& p, const py::object& x, std::size_t batch, bool logits, bool copy) {
  auto& model = p.use();
  const Samples s = samples_of(x, model, copy, "Sequential.predict");
  std::vector<float> out;
  {
    py::gil_scoped_release unlocked;
    out = nn::predict(model, s.values, logits ? nn::Outputs::Logits : nn::Outputs::Model, batch);
  }
  std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(s.count)};
  const nn::Shape output = model.output_shape();
  for (const auto d : output.dims()) shape.push_back(static_cast<py::ssize_t>(d));
  py::array a = new_array(ElementType::Float32, shape);
  std::copy(out.begin(), out.end(), static_cast<float*>(a.mutable_data()));
  return a;
}

py::array classify(PyModel& p, const py::object& x, std::size_t batch, bool copy) {
  auto& model = p.use();
  const Samples s = samples_of(x, model, copy, "Sequential.classify");
  std::vector<float> out;
  {
    py::gil_scoped_release unlocked;
    out = nn::predict(model, s.values, nn::Outputs::Logits, batch);
  }
  const std::size_t k = out.size() / s.count;
  py::array a = new_array(ElementType::Int32, {static_cast<py::ssize_t>(s.count)});
  auto* c = static_cast<std::int32_t*>(a.mutable_data());
  for (std::size_t n = 0; n < s.count; ++n) {
    const float* row = out.data() + n * k;
    c[n] = static_cast<std::int32_t>(std::max_element(row, row + k) - row);  // the first largest
  }
  return a;
}

py::dict evaluate(PyModel& p, const py::object& x, const py::object& y, std::size_t batch,
                  bool copy) {
  auto& model = p.use();
  const Samples s = samples_of(x, model, copy, "Sequential.evaluate");
  const auto labels = labels_of(y, s.count, model, "Sequential.evaluate");
  return evaluation_dict(evaluate_samples(model, s, labels, batch));
}

}  // namespace

void bind_nn_train(py::class_<PyModel>& c) {
  c.def("train", &train, py::arg("x"), py::arg("y"), py::kw_only(), py::arg("epochs") = 1,
        py::arg("batch") = py::none(), py::arg("optimizer") = py::none(),
        py::arg("learning_rate") = py::none(), py::arg("schedule") = "constant",
        py::arg("seed") = 1, py::arg("validation") = py::none(), py::arg("progress") = py::none(),
        py::arg("callback") = py::none(), py::arg("augment") = false, py::arg("limit_steps") = 0,
        py::arg("report_every") = 0, py::arg("copy") = false,
        R"(Trains on labelled samples; returns one dict per epoch.

    history = model.train(x, y, epochs=3, batch=64, optimizer=gpgpu.nn.Adam(1e-3),
                          validation=(x_test, y_test))
    history[-1]   # {'epoch': 2, 'loss': 0.31, 'accuracy': 0.89, 'val_loss': ..., 'val_accuracy': ...,
                  #  'seconds': ..., 'images_per_second': ..., 'learning_rate': ..., 'steps': ...}

x: float32 samples (N, *input_shape), fed to the network as they are (no copy), or uint8 images
(N, C, H, W) (or (N, H, W) for one channel) normalised by model.normalization on the device, as
`gpgpu train` does (augment=True adds its random flips and 2-pixel shifts). y: N integer labels
in [0, classes). Softmax cross-entropy loss (a final Softmax layer is fused with it); each
epoch shuffles (from seed and the epoch) and drops the last incomplete batch.
batch, optimizer (gpgpu.nn.SGD / Adam, or "sgd" / "adam"), learning_rate: default to a built-in
net's recipe, else 64 and Adam(1e-3). schedule: "constant", "cosine" or "step" over `epochs`.
progress: draw `gpgpu train`'s progress bar on sys.stderr (default: when it is a terminal).
callback(dict): called at each report (every report_every steps, default 50 a epoch) with
epoch, step, steps, loss, images_per_second, seconds. limit_steps: stop each epoch early.
The GIL is released while the model trains (Ctrl-C stops it at the next report). Raises
SizeMismatchError / TypeMismatchError / ArgumentError naming what does not fit before anything
runs.)");
  c.def("predict", &predict, py::arg("x"), py::kw_only(), py::arg("batch") = 1000,
        py::arg("logits") = false, py::arg("copy") = false,
        R"(The model's outputs for samples x: float32 (N, *output_shape).

    probabilities = model.predict(x)           # a final Softmax gives probabilities
    logits = model.predict(x, logits=True)     # the input of a final Softmax

x as for train (float32 samples, or uint8 images normalised by model.normalization). Runs in
batches of `batch` (the last padded, so one batch size serves); the GIL is released.)");
  c.def("classify", &classify, py::arg("x"), py::kw_only(), py::arg("batch") = 1000,
        py::arg("copy") = false,
        R"(The class of each sample (the first largest output): int32 (N,).

    classes = model.classify(x_test)
    accuracy = (classes == y_test).mean())");
  c.def("evaluate", &evaluate, py::arg("x"), py::arg("y"), py::kw_only(), py::arg("batch") = 1000,
        py::arg("copy") = false,
        R"(Loss, accuracy, predictions and confusion matrix of labelled samples, as a dict.

    e = model.evaluate(x_test, y_test)
    e["accuracy"], e["loss"], e["predictions"], e["confusion"]   # confusion[true, predicted]

The loss is the mean softmax cross-entropy (float64, from the model's float32 logits).)");
}

}  // namespace gpgpu::python
