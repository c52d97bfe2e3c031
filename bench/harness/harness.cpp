// The benchmark harness (harness.hpp).
#include "harness.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <fstream>
#include <iostream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gnuplot.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/profiler.hpp"
#if GPGPU_BENCH_HAVE_CUDA
#include "cuda_matmul.hpp"
#endif

namespace gpgpu::bench {

std::string utc_now(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[64];
  std::strftime(text, sizeof text, format, &utc);
  return text;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (line.rfind("model name", 0) == 0 && colon != std::string::npos) {
      return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown CPU";
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return in ? one + " " + five + " " + fifteen : "";
}

CudaReference cuda_reference([[maybe_unused]] bool wanted) {
#if GPGPU_BENCH_HAVE_CUDA
  if (!wanted) return {false, "turned off"};
  std::string why;
  if (!cuda_ref::available(&why)) return {false, "unavailable: " + why};
  return {true, cuda_ref::device_name()};
#else
  return {false, "not built"};
#endif
}

RunFacts RunFacts::begin(const Context& ctx, std::string command, const char* date_format) {
  const auto& info = ctx.info();
  RunFacts f;
  f.start_ = Clock::now();
  f.date = utc_now(date_format);
  f.command = std::move(command);
  f.renderer = info.renderer;
  f.vendor = info.vendor;
  f.gl_version = info.version;
  f.glsl_version = info.glsl_version;
  f.device_kind = info.device_kind;
  f.is_software = info.is_software;
  f.timer_query = info.has_timer_query();
  f.cpu_model = bench::cpu_model();
  f.hardware_threads = static_cast<int>(std::thread::hardware_concurrency());
  f.load_before = load_average();
  f.cuda = cuda_reference().status;
  return f;
}

void RunFacts::end() {
  load_after = load_average();
  seconds = ms_since(start_) / 1e3;
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double process_cpu_ms() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto ms = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3;
  };
  return ms(usage.ru_utime) + ms(usage.ru_stime);
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

std::vector<double> sample(const Budget& budget, const std::function<double()>& call,
                           std::vector<double>* cpu_ms) {
  for (int i = 0; i < budget.warmup; ++i) call();
  std::vector<double> times;
  double total_ms = 0;
  const auto more = [&] {
    const auto n = static_cast<int>(times.size());
    return n < std::max(1, budget.min_repeats) ||
           (n < budget.repeats && total_ms < budget.max_seconds * 1e3);
  };
  while (more()) {
    const double cpu_start = cpu_ms != nullptr ? process_cpu_ms() : 0;
    times.push_back(call());
    if (cpu_ms != nullptr) cpu_ms->push_back(process_cpu_ms() - cpu_start);
    total_ms += times.back();
  }
  return times;
}

std::vector<double> wall_times(const Budget& budget, const std::function<void()>& call,
                               std::vector<double>* cpu_ms) {
  const auto timed = [&] {
    const auto start = Clock::now();
    call();
    return ms_since(start);
  };
  return sample(budget, timed, cpu_ms);
}

double median_ms(const Budget& budget, const std::function<void()>& call) {
  return median(wall_times(budget, call));
}

Timing profile(const Context& ctx, const Budget& budget, const std::function<void()>& call,
               const std::function<void()>& setup) {
  for (int i = 0; i < budget.warmup; ++i) {
    if (setup) setup();
    call();
  }
  Profiler profiler(ctx);
  Budget timed = budget;
  timed.warmup = 0;
  const auto runs = sample(timed, [&] {
    if (setup) setup();
    ctx.finish();
    const auto start = Clock::now();
    auto scope = profiler.scope("call");
    call();
    scope.stop();
    return ms_since(start);
  });
  const ProfileStats s = profiler.stats("call");
  return {s.gpu_samples > 0 ? s.gpu_median_ms : -1, s.wall_median_ms,
          static_cast<int>(runs.size())};
}

// ---- Tables

Cell::Cell(double v, int decimals) : text(fmt::format("{:.{}f}", v, decimals)), number(v) {}
Cell::Cell(std::size_t v)
    : text(std::to_string(v)), number(static_cast<double>(v)), integer(true) {}
Cell::Cell(int v) : text(std::to_string(v)), number(v), integer(true) {}

Cell ratio(double value, double reference) {
  if (reference <= 0 || value <= 0) return Cell::missing();
  Cell cell(value / reference);
  cell.text = ratio_text(value, reference);
  return cell;
}

std::string ratio_text(double value, double reference) {
  if (!(value > 0) || !(reference > 0)) return "-";
  return fmt::format("{:.2f}x", value / reference);
}

Table::Table(std::string name, std::string title, std::vector<std::string> columns)
    : name_(std::move(name)), title_(std::move(title)), columns_(std::move(columns)) {}

void Table::add(std::vector<Cell> row) {
  if (row.size() != columns_.size()) {
    throw Error(fmt::format("table {}: a row of {} cells for {} columns", name_, row.size(),
                            columns_.size()));
  }
  rows_.push_back(std::move(row));
}

void Table::print(std::ostream& out, bool markdown) const {
  const std::size_t columns = columns_.size();
  std::vector<std::size_t> width(columns);
  std::vector<bool> left(columns, false);  // text columns align left, numbers right
  std::string rule = markdown ? "|" : "";
  for (std::size_t c = 0; c < columns; ++c) {
    width[c] = columns_[c].size();
    for (const auto& row : rows_) {
      width[c] = std::max(width[c], row[c].text.size());
      left[c] = left[c] || (!row[c].number && row[c].text != "-");
    }
    rule += markdown ? std::string(width[c] + 1, '-') + (left[c] ? "-|" : ":|")
                     : std::string(width[c] + (c == 0 ? 0 : 2), '-');
  }
  const auto line = [&](const auto& text_of) {
    std::string s = markdown ? "| " : "";
    for (std::size_t c = 0; c < columns; ++c) {
      const char* gap = markdown ? (c == 0 ? "" : " | ") : (c == 0 ? "" : "  ");
      s += fmt::format(fmt::runtime(left[c] ? "{}{:<{}}" : "{}{:>{}}"), gap, text_of(c), width[c]);
    }
    out << s << (markdown ? " |\n" : "\n");
  };
  if (!title_.empty()) out << "\n" << title_ << (markdown ? "\n\n" : "\n");
  line([&](std::size_t c) { return columns_[c]; });
  out << rule << "\n";
  for (const auto& row : rows_) line([&](std::size_t c) { return row[c].text; });
  for (const auto& n : notes_) out << "  " << n << "\n";
}

std::string Table::json(const std::string& device, const std::string& date) const {
  using nlohmann::ordered_json;
  ordered_json doc{{"name", name_}, {"title", title_}, {"device", device},
                   {"date", date},  {"notes", notes_}, {"rows", ordered_json::array()}};
  for (const auto& row : rows_) {
    ordered_json r;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const Cell& cell = row[c];
      // A double holds integers up to 2^53 exactly; a larger one stays the double it is.
      const bool integer = cell.number && cell.integer && std::abs(*cell.number) <= 0x1p53;
      r[columns_[c]] = integer            ? ordered_json(static_cast<std::int64_t>(*cell.number))
                       : cell.number      ? ordered_json(*cell.number)
                       : cell.text == "-" ? ordered_json(nullptr)
                                          : ordered_json(cell.text);
    }
    doc["rows"].push_back(r);
  }
  return doc.dump(2) + "\n";
}

std::string Table::csv() const {
  std::string out;
  for (std::size_t c = 0; c < columns_.size(); ++c)
    out.append(c ? "," : "").append(csv_field(columns_[c]));
  for (const auto& row : rows_) {
    out += '\n';
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const std::string value = row[c].number        ? fmt::format("{}", *row[c].number)
                                : row[c].text == "-" ? ""
                                                     : row[c].text;
      out.append(c ? "," : "").append(csv_field(value));
    }
  }
  return out + '\n';
}

void Table::write(const std::filesystem::path& dir, const std::string& prefix,
                  const std::string& device, const std::string& date) const {
  write_file(dir / (prefix + name_ + ".json"), json(device, date));
  write_file(dir / (prefix + name_ + ".csv"), csv());
}

Session::Session(Context& ctx, SessionOptions o)
    : context(ctx),
      options(std::move(o)),
      log(options.log != nullptr ? *options.log : std::cout),
      device(ctx.info().renderer),
      date(utc_now()),
      cuda(cuda_reference(options.cuda)) {
  if (options.warmup < 0 || options.repeats < 1) {
    throw ArgumentError(fmt::format("bench: warmup {} must be >= 0 and repeats {} >= 1",
                                    options.warmup, options.repeats));
  }
}

double Session::median_ms(const std::function<void()>& call, int repeats) const {
  return bench::median_ms(budget(repeats), call);
}

Timing Session::profile(const std::function<void()>& call) const {
  return bench::profile(context, budget(), call);
}

void Session::finish(const Table& table) const {
  table.print(log);
  log << std::flush;
  if (!options.out_dir.empty()) table.write(options.out_dir, options.prefix, device, date);
}

// ---- Files and charts

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char ch : s) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

std::string number(double x) {
  return std::isfinite(x) ? fmt::format("{:.6g}", x) : "inf";
}

void write_file(const std::filesystem::path& file, const std::string& text) {
  // Through a temporary and a rename: a write that fails half-way leaves no partial file.
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path());
  const auto temporary = std::filesystem::path(file).concat(".tmp");
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << text;
    if (out.flush()) {
      out.close();
      std::error_code ec;
      std::filesystem::rename(temporary, file, ec);
      if (!ec) return;
    }
  }
  std::error_code ignored;
  std::filesystem::remove(temporary, ignored);
  throw Error(fmt::format("bench: cannot write {}", file.string()));
}

std::string gnuplot_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

Chart::Chart(std::filesystem::path dir, std::string name, std::string settings)
    : dir_(std::move(dir)),
      name_(std::move(name)),
      script_(
          fmt::format("# Made by the gpgpu benchmarks; run `gnuplot {}.gp` here to redraw.\n"
                      "set terminal pngcairo size 1100,700 noenhanced font 'DejaVu Sans,11'\n{}",
                      name_, settings)) {}

int Chart::block(const std::string& label, const std::string& rows) {
  if (rows.empty()) return -1;
  data_ += "# " + label + "\n" + rows + "\n\n";
  return blocks_++;
}

void Chart::plot(const std::string& png, const std::string& settings,
                 const std::vector<std::string>& series) {
  if (series.empty()) return;
  script_ +=
      fmt::format("set output '{}'\n{}plot {}\n", png, settings, fmt::join(series, ", \\\n     "));
  pngs_.push_back(png);
}

std::string Chart::draw() const {
  write_file(dir_ / (name_ + ".dat"), data_);
  write_file(dir_ / (name_ + ".gp"), script_);
  if (pngs_.empty()) return "no correct results to chart";
  if (auto why = gnuplot::draw(dir_, name_ + ".gp"); !why.empty()) return why;
  return fmt::format("charts: {}", fmt::join(pngs_, ", "));
}

}  // namespace gpgpu::bench
