// autotune_matmul: time a few register-blocked tunings on this device and remember the
// fastest in a JSON file, keyed by the GL renderer string.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpgpu/buffer.hpp"
#include "gpgpu/cache.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/matmul.hpp"
#include "matmul/matmul_backend.hpp"

namespace gpgpu {

namespace {

using nlohmann::json;

constexpr const char* cache_file_name = "matmul_tuning.json";
constexpr const char* cache_format = "gpgpu matmul tuning cache";
constexpr int cache_version = 1;

json tuning_to_json(const MatmulTuning& t) {
  return json{{"block_m", t.block_m},
              {"block_n", t.block_n},
              {"block_k", t.block_k},
              {"thread_m", t.thread_m},
              {"thread_n", t.thread_n},
              {"tile", t.tile},
              {"shared_memory", t.shared_memory},
              {"b_texture", t.b_texture}};
}

MatmulTuning tuning_from_json(const json& j) {
  MatmulTuning t;
  t.block_m = j.at("block_m").get<int>();
  t.block_n = j.at("block_n").get<int>();
  t.block_k = j.at("block_k").get<int>();
  t.thread_m = j.at("thread_m").get<int>();
  t.thread_n = j.at("thread_n").get<int>();
  t.tile = j.value("tile", 0);
  t.shared_memory = j.value("shared_memory", true);
  t.b_texture = j.value("b_texture", false);
  return t;
}

// The whole cache file, or an empty document if it does not exist. A file that is not
// ours (or is corrupt) is reported: silently overwriting a user's file would be worse.
json read_cache(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return json::object();
  json doc = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    throw FormatError(
        fmt::format("matmul tuning cache {} is not valid JSON; delete it", file.string()));
  }
  if (doc.value("format", "") != cache_format) {
    throw FormatError(fmt::format("{} is not a gpgpu matmul tuning cache (no \"format\": \"{}\")",
                                  file.string(), cache_format));
  }
  if (doc.value("version", 0) != cache_version) return json::object();  // an older layout
  return doc;
}

// Writes through a temporary file and a rename, so a crash never leaves half a file and
// a concurrent reader sees either the old or the new cache.
void write_cache(const std::filesystem::path& file, const json& doc) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) {
    throw Error(fmt::format("cannot create the cache directory {}: {}", file.parent_path().string(),
                            ec.message()));
  }
  const auto temporary = file.string() + fmt::format(".{}.tmp", std::random_device{}());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << doc.dump(2) << '\n';
    if (!out) throw Error(fmt::format("cannot write the matmul tuning cache {}", temporary));
  }
  std::filesystem::rename(temporary, file, ec);
  if (ec) {
    std::filesystem::remove(temporary);
    throw Error(fmt::format("cannot replace {}: {}", file.string(), ec.message()));
  }
}

// Reading the cache on every MatmulPlan would parse the file each call; keep what was read,
// per file, until the file changes.
struct CacheMemo {
  std::mutex mutex;
  std::filesystem::path file;
  std::filesystem::file_time_type stamp;
  json doc;
};
CacheMemo& memo() {
  static CacheMemo instance;
  return instance;
}

json cached_document(const std::filesystem::path& file) {
  std::error_code ec;
  const auto stamp = std::filesystem::last_write_time(file, ec);
  if (ec) return json::object();
  auto& m = memo();
  std::lock_guard lock(m.mutex);
  if (m.file != file || m.stamp != stamp) {
    m.doc = read_cache(file);
    m.file = file;
    m.stamp = stamp;
  }
  return m.doc;
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// Float64 check of a few entries: a candidate that compiles but computes garbage on this
// driver must not win because it is fast. Bound: (k + 2) * 2^-24 * sum |a_ik b_kj|.
std::string check_sample(const std::vector<float>& a, const std::vector<float>& b,
                         const std::vector<float>& c, int n, std::mt19937& rng) {
  std::uniform_int_distribution<int> pick(0, n - 1);
  const double gamma = (n + 2) * std::ldexp(1.0, -24);
  for (int s = 0; s < 32; ++s) {
    const int row = s == 0 ? n - 1 : pick(rng);
    const int col = s == 0 ? n - 1 : pick(rng);
    double exact = 0, magnitude = 0;
    for (int i = 0; i < n; ++i) {
      const double p = static_cast<double>(a[static_cast<std::size_t>(row) * n + i]) *
                       b[static_cast<std::size_t>(i) * n + col];
      exact += p;
      magnitude += std::abs(p);
    }
    const double got = c[static_cast<std::size_t>(row) * n + col];
    if (!(std::abs(got - exact) <= gamma * magnitude)) {
      return fmt::format("wrong result: C[{}][{}] = {} but float64 gives {}", row, col, got, exact);
    }
  }
  return {};
}

// The tuning of one device's cache entry, if it can be read, was measured under this driver
// (its GL version string) and is valid on this device; an entry we cannot read is as good as
// none: tune again.
std::optional<MatmulTuning> usable_tuning(const json& entry, const DeviceInfo& info) {
  try {
    if (entry.value("gl_version", info.version) != info.version) return std::nullopt;
    MatmulTuning t = tuning_from_json(entry.at("tuning"));
    validate_matmul_tuning(t, info);
    return t;
  } catch (const json::exception&) {
    return std::nullopt;
  } catch (const ArgumentError&) {
    return std::nullopt;
  }
}

}  // namespace

std::filesystem::path matmul_cache_file(const std::filesystem::path& cache_dir) {
  return (cache_dir.empty() ? cache::directory() : cache_dir) / cache_file_name;
}

std::optional<MatmulTuning> cached_matmul_tuning(const Context& context,
                                                 const std::filesystem::path& cache_dir) {
  if (!cache::enabled()) return std::nullopt;
  const json doc = cached_document(matmul_cache_file(cache_dir));
  const auto devices = doc.find("devices");
  if (devices == doc.end() || !devices->is_object()) return std::nullopt;
  const auto entry = devices->find(context.info().renderer);
  if (entry == devices->end()) return std::nullopt;
  return usable_tuning(*entry, context.info());
}

std::vector<MatmulTuning> matmul_tuning_candidates(const DeviceInfo& device) {
  const auto shape = [&](int bm, int bn, int bk, int tm, int tn) {
    MatmulTuning t;
    t.tile = detail::default_tile(device);
    t.block_m = bm;
    t.block_n = bn;
    t.block_k = bk;
    t.thread_m = tm;
    t.thread_n = tn;
    return t;
  };
  // llvmpipe: no shared memory; B from a texture (btex) or from storage.
  const auto direct = [&](int bm, int bn, int tm, int tn, bool b_texture) {
    MatmulTuning t = shape(bm, bn, 8, tm, tn);
    t.shared_memory = false;
    t.b_texture = b_texture;
    return t;
  };
  std::vector<MatmulTuning> all;
  if (device.is_software) {
    all = {direct(8, 256, 8, 16, true),  direct(8, 128, 8, 16, true), direct(8, 512, 8, 16, true),
           direct(8, 256, 8, 8, true),   direct(4, 256, 4, 16, true), direct(4, 128, 4, 8, true),
           direct(8, 256, 8, 16, false), direct(8, 256, 8, 8, false)};
  } else {
    all = {shape(128, 128, 8, 8, 8), shape(128, 128, 16, 8, 8), shape(128, 64, 8, 8, 8),
           shape(64, 128, 8, 8, 8),  shape(64, 64, 8, 4, 4),    shape(64, 64, 16, 8, 8),
           shape(128, 128, 8, 8, 4), shape(32, 32, 8, 4, 4)};
  }
  // Keep the first one, the device default, first; drop any the device cannot run.
  std::vector<MatmulTuning> usable;
  for (const auto& t : all) {
    try {
      validate_matmul_tuning(t, device);
      usable.push_back(t);
    } catch (const ArgumentError&) {
    }
  }
  return usable;
}

namespace {

void check_autotune_arguments(int n, const AutotuneOptions& options) {
  if (n <= 0)
    throw SizeMismatchError(fmt::format("autotune_matmul: n must be positive (got {})", n));
  if (options.repeats <= 0) {
    throw ArgumentError(
        fmt::format("autotune_matmul: repeats must be positive (got {})", options.repeats));
  }
}

// The cached answer for this device, when the cache holds one measured at the same n.
bool answer_from_cache(const Context& context, const json& doc, AutotuneResult& result) {
  const std::string& device = context.info().renderer;
  if (!doc.contains("devices") || !doc["devices"].contains(device)) return false;
  const json& entry = doc["devices"][device];
  if (entry.value("n", 0) != result.n) return false;
  const auto cached = usable_tuning(entry, context.info());
  if (!cached) return false;
  result.best = *cached;
  result.gflops = entry.value("gflops", 0.0);
  result.from_cache = true;
  return true;
}

// Random n x n operands, on the host (for the correctness check) and on the device.
struct TuningOperands {
  int n;
  std::vector<float> host_a, host_b, host_c;
  Buffer a, b, c;
};

TuningOperands make_operands(const Context& context, int n, std::mt19937& rng) {
  const auto count = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> host_a(count), host_b(count);
  for (auto& x : host_a) x = dist(rng);
  for (auto& x : host_b) x = dist(rng);
  auto a = Buffer::from(context, host_a);
  auto b = Buffer::from(context, host_b);
  Buffer c(context, ElementType::Float32, count);
  return {n,
          std::move(host_a),
          std::move(host_b),
          std::vector<float>(count),
          std::move(a),
          std::move(b),
          std::move(c)};
}

// Every candidate's kernel, compiled together (in parallel where the driver can) before
// any is timed.
void precompile_candidates(const Context& context, int n,
                           const std::vector<MatmulTuning>& candidates) {
  std::vector<KernelSource> kernels;
  for (const auto& t : candidates) {
    kernels.push_back(detail::register_blocked_kernel(context, {n, n, n}, t));
  }
  precompile(context, kernels);
}

// The median time of `repeats` runs of one tuning after a warm-up, then a sampled check of
// its product; a tuning that does not compile or computes wrongly records why.
AutotuneCandidate time_candidate(const Context& context, const MatmulTuning& tuning,
                                 TuningOperands& ops, int repeats, std::mt19937& rng) {
  // llvmpipe answers timer queries without seeing the shader's work (it runs on CPU
  // threads), so there only the wall clock around dispatch + glFinish means anything.
  const bool gpu_timer = !context.info().is_software && context.info().has_timer_query();
  AutotuneCandidate candidate;
  candidate.tuning = tuning;
  try {
    MatmulOptions plan_options;
    plan_options.method = MatmulMethod::ComputeRegisterBlocked;
    plan_options.tuning = tuning;
    MatmulPlan plan(context, ops.n, ops.n, ops.n, plan_options);
    plan.set_timing(gpu_timer);
    plan.run(ops.a, ops.b, ops.c);  // warm-up: the first dispatch of a program is slower
    std::vector<double> times;
    for (int r = 0; r < repeats; ++r) {
      const auto start = std::chrono::steady_clock::now();
      plan.run(ops.a, ops.b, ops.c);
      double ms = gpu_timer ? plan.last_gpu_ns() / 1e6 : -1.0;
      if (ms <= 0) {  // no usable timer: wall clock after the GPU is done
        context.finish();
        ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                 .count();
      }
      times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    ops.c.download(std::span<float>(ops.host_c));
    candidate.failure = check_sample(ops.host_a, ops.host_b, ops.host_c, ops.n, rng);
    if (candidate.failure.empty()) {
      const double flops = 2.0 * static_cast<double>(ops.n) * ops.n * ops.n;
      candidate.gpu_ms = times[times.size() / 2];
      candidate.gflops = flops / (candidate.gpu_ms * 1e6);
    }
  } catch (const CompileError& e) {
    candidate.failure = std::string("did not compile: ") + e.what();
  }
  return candidate;
}

// The fastest candidate that computed correctly, or an error listing why each failed.
void pick_best(const std::string& device, AutotuneResult& result) {
  double best_ms = -1;
  for (const auto& candidate : result.candidates) {
    if (!candidate.failure.empty()) continue;
    if (best_ms < 0 || candidate.gpu_ms < best_ms) {
      best_ms = candidate.gpu_ms;
      result.best = candidate.tuning;
      result.gflops = candidate.gflops;
    }
  }
  if (best_ms >= 0) return;
  std::string reasons;
  for (const auto& c : result.candidates) {
    reasons += fmt::format("\n  {}: {}", c.tuning.to_string(), c.failure);
  }
  throw Error(fmt::format("autotune_matmul: no candidate tuning worked on {}:{}", device, reasons));
}

void store_in_cache(const Context& context, const AutotuneResult& result) {
  json doc = read_cache(result.cache_file);  // re-read: another process may have added a device
  doc["format"] = cache_format;
  doc["version"] = cache_version;
  doc["devices"][context.info().renderer] = json{{"tuning", tuning_to_json(result.best)},
                                                 {"gflops", result.gflops},
                                                 {"n", result.n},
                                                 {"gl_version", context.info().version},
                                                 {"date", today()}};
  write_cache(result.cache_file, doc);
}

}  // namespace

AutotuneResult autotune_matmul(const Context& context, int n, const AutotuneOptions& options) {
  check_autotune_arguments(n, options);
  AutotuneResult result;
  result.n = n;
  result.cache_file = matmul_cache_file(options.cache_dir);
  const bool cache_on = cache::enabled();  // GPGPU_CACHE=off: neither read nor written
  if (cache_on && options.use_cache &&
      answer_from_cache(context, read_cache(result.cache_file), result)) {
    return result;
  }
  std::mt19937 rng(std::random_device{}());
  auto operands = make_operands(context, n, rng);
  const auto candidates = matmul_tuning_candidates(context.info());
  precompile_candidates(context, n, candidates);
  for (const auto& tuning : candidates) {
    result.candidates.push_back(time_candidate(context, tuning, operands, options.repeats, rng));
  }
  pick_best(context.info().renderer, result);
  if (cache_on && options.write_cache) store_in_cache(context, result);
  return result;
}

}  // namespace gpgpu
