// bench/harness/harness.hpp — what every `gpgpu bench ...` is built on, so that a benchmark
// only says what it times and how it checks the result: the facts of a run (RunFacts),
// timing (Budget, sample, median_ms, profile), same-run ratios (ratio), tables printed and
// written as JSON and CSV (Table), files and charts (write_file, Chart), and a Session that
// holds them for a benchmark of several tables; docs/contributing.md ("Add a benchmark")
// shows one in use. Part of the static library gpgpu_bench_harness, which every bench links.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "gpgpu/context.hpp"

namespace gpgpu::bench {

// ---- The facts of a run -------------------------------------------------------------------

// The time now in UTC, strftime's `format`.
std::string utc_now(const char* format = "%Y-%m-%dT%H:%M:%SZ");
std::string cpu_model();     // /proc/cpuinfo's model name, "unknown CPU" where there is none
std::string load_average();  // /proc/loadavg's 1, 5 and 15 minute figures; "" where there is none

// The CUDA reference (bench/cuda, built where CMake found CUDA): whether it can run here, and
// the device name, or why not ("not built", "turned off", "unavailable: <why>").
struct CudaReference {
  bool ok = false;
  std::string status;
};
CudaReference cuda_reference(bool wanted = true);

// What a report records about the machine and the run, gathered by begin() and end().
struct RunFacts {
  std::string date, command;
  std::string renderer, vendor, gl_version, glsl_version, device_kind;
  bool is_software = false, timer_query = false;
  std::string cpu_model;
  int hardware_threads = 0;
  std::string load_before, load_after;  // other work competes for the CPU
  std::string cuda;                     // CudaReference::status
  double seconds = 0;                   // the whole run, set by end()

  static RunFacts begin(const Context& ctx, std::string command, const char* date_format);
  void end();

 private:
  std::chrono::steady_clock::time_point start_;
};

// ---- Timing -------------------------------------------------------------------------------

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start);
double process_cpu_ms();  // user + system time of this process, every thread

// The median; NaN for no values.
double median(std::vector<double> values);

// How often a point runs: `warmup` untimed runs, then timed ones until `repeats`, or until they
// total max_seconds (but at least min_repeats).
struct Budget {
  int warmup = 1;
  int repeats = 5;
  double max_seconds = std::numeric_limits<double>::infinity();
  int min_repeats = 1;
};

// The timed runs of `call`, which returns its own milliseconds; with `cpu_ms`, also the CPU
// time of this process during each.
std::vector<double> sample(const Budget& budget, const std::function<double()>& call,
                           std::vector<double>* cpu_ms = nullptr);
// The wall milliseconds of each timed run of `call`, which must return with its work complete;
// with `cpu_ms`, also the CPU time of this process during each.
std::vector<double> wall_times(const Budget& budget, const std::function<void()>& call,
                               std::vector<double>* cpu_ms = nullptr);
// Their median.
double median_ms(const Budget& budget, const std::function<void()>& call);

// A point timed with gpgpu::Profiler: GPU timestamps where the device answers timer queries,
// and the fenced wall clock always. `setup` runs before each call, outside the timing.
struct Timing {
  double gpu_ms = -1;   // median GPU time; -1 without timer queries
  double wall_ms = -1;  // median fenced wall time
  int runs = 0;
  // The GPU time where there is one: kernels are compared by what the GPU spent.
  double kernel_ms() const { return gpu_ms >= 0 ? gpu_ms : wall_ms; }
};
Timing profile(const Context& ctx, const Budget& budget, const std::function<void()>& call,
               const std::function<void()>& setup = {});

// The median milliseconds of `run`, by `timed`'s own GPU timer (a kernel or plan with
// set_timing and last_gpu_ns) where `gpu` is true and it answers, else the wall clock around
// `run` and Context::finish.
template <class Timed>
double kernel_ms(const Context& ctx, Timed& timed, bool gpu, const Budget& budget,
                 const std::function<void()>& run) {
  timed.set_timing(gpu);
  return median(sample(budget, [&] {
    const auto start = Clock::now();
    run();
    ctx.finish();
    const double wall = ms_since(start);
    return gpu && timed.last_gpu_ns() > 0 ? timed.last_gpu_ns() * 1e-6 : wall;
  }));
}

// y += alpha x over float arrays x and y: the kernel of the SAXPY round trips and start-ups.
inline constexpr const char* saxpy_source = R"(
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
uniform float alpha;
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] += alpha * x[i]; })";

// GB/s of `bytes` moved in `ms` milliseconds (1e9 bytes per second); 0 without a time.
inline double gbps(double bytes, double ms) {
  return ms > 0 ? bytes / (ms * 1e6) : 0;
}

// ---- Tables -------------------------------------------------------------------------------

// One cell: its text as shown, and the number behind it where there is one (JSON and CSV
// write the number; a "-" cell is missing: null in JSON, empty in CSV). A cell given as an
// integer (a size, a count) is written to JSON as an integer: the type it was given with
// decides, not whether the value happens to be whole, so that a column of doubles stays one of
// floats when a time comes out as exactly 2.
struct Cell {
  Cell(const char* s) : text(s) {}             // NOLINT: rows are written as {"name", 1.5, ...}
  Cell(std::string s) : text(std::move(s)) {}  // NOLINT
  Cell(double v, int decimals = 2);            // NOLINT
  Cell(std::size_t v);                         // NOLINT
  Cell(int v);                                 // NOLINT
  static Cell missing() { return Cell("-"); }
  // A number shown as `decimals` digits, or "-" when it is not positive (not measured).
  static Cell positive(double v, int decimals = 2) { return v > 0 ? Cell(v, decimals) : missing(); }
  std::string text;
  std::optional<double> number;
  bool integer = false;  // number was given as an integer
};

// value / reference as "0.62x" with the number behind it; "-" without a reference.
Cell ratio(double value, double reference);
// The same as text only ("-" without a reference).
std::string ratio_text(double value, double reference);

// A titled table with notes: printed in aligned columns (text left, numbers right), plain or as
// markdown (the title and notes, when there are any, around it), written as
// {"name", "title", "device", "date", "notes": [...], "rows": [{column: value}]} and as CSV.
class Table {
 public:
  Table(std::string name, std::string title, std::vector<std::string> columns);
  explicit Table(std::vector<std::string> columns) : Table("", "", std::move(columns)) {}
  void add(std::vector<Cell> row);  // throws gpgpu::Error for a row of the wrong width
  void note(std::string line) { notes_.push_back(std::move(line)); }
  const std::string& name() const { return name_; }
  bool empty() const { return rows_.empty(); }

  void print(std::ostream& out, bool markdown = false) const;
  std::string json(const std::string& device, const std::string& date) const;
  std::string csv() const;
  // Writes <dir>/<prefix><name>.json and .csv, creating dir.
  void write(const std::filesystem::path& dir, const std::string& prefix, const std::string& device,
             const std::string& date) const;

 private:
  std::string name_, title_;
  std::vector<std::string> columns_;
  std::vector<std::vector<Cell>> rows_;
  std::vector<std::string> notes_;
};

// A benchmark of several tables on one Context: its options, timing and output.
struct SessionOptions {
  std::filesystem::path out_dir;  // empty: tables on the log only
  std::string prefix;             // of the file names: <prefix><table>.json
  int warmup = 2;
  int repeats = 7;
  bool cuda = true;             // compare with the CUDA reference where it can run
  std::ostream* log = nullptr;  // progress and tables; nullptr: std::cout
};

class Session {
 public:
  Session(Context& context, SessionOptions options);

  Context& context;
  const SessionOptions options;
  std::ostream& log;
  const std::string device;  // the GL renderer
  const std::string date;    // UTC, ISO 8601
  const CudaReference cuda;

  bool software() const { return context.info().is_software; }
  Budget budget(int repeats = 0) const {
    return {options.warmup, repeats > 0 ? repeats : options.repeats};
  }
  // The median wall milliseconds of `call` (which returns with its work complete).
  double median_ms(const std::function<void()>& call, int repeats = 0) const;
  // GPU and fenced wall medians of `call` (gpgpu::Profiler).
  Timing profile(const std::function<void()>& call) const;
  // Prints the table, and writes its files (named with the prefix) when out_dir is set.
  void finish(const Table& table) const;
};

// ---- Files and charts ---------------------------------------------------------------------

// A CSV field: quoted (with "" for ") when it holds a comma, a quote or a newline.
std::string csv_field(const std::string& s);
// "%.6g", or "inf" for a value that is not finite.
std::string number(double x);
// Writes `text` to `file` atomically (a temporary, then a rename), creating its folder; throws
// gpgpu::Error when it cannot.
void write_file(const std::filesystem::path& file, const std::string& text);

// A gnuplot chart set: data blocks in <name>.dat (gnuplot's `index`), plots into PNGs by
// <name>.gp, drawn in `dir`; the script is kept so that `gnuplot <name>.gp` redraws them.
class Chart {
 public:
  Chart(std::filesystem::path dir, std::string name, std::string settings);
  // Adds a data block ("x y ..." lines); returns its index, or -1 when `rows` is empty.
  int block(const std::string& label, const std::string& rows);
  // One PNG: `settings` lines, then `plot` of the given series ("index I using 1:C ... title T").
  void plot(const std::string& png, const std::string& settings,
            const std::vector<std::string>& series);
  // Writes the files and runs gnuplot: "charts: a.png, b.png", or why nothing was drawn.
  std::string draw() const;

 private:
  std::filesystem::path dir_;
  std::string name_, data_, script_;
  std::vector<std::string> pngs_;
  int blocks_ = 0;
};

// A gnuplot string literal: "text" with " and \ escaped.
std::string gnuplot_string(const std::string& s);

}  // namespace gpgpu::bench
