// `gpgpu bench startup` (startup_bench.hpp): fresh processes timed with an empty, a warm and a
// driver-only cache, and the steady state beside them.
#include "startup_bench.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpgpu/context.hpp"
#include "gpgpu/error.hpp"
#include "gpgpu/nn.hpp"
#include "gpgpu/npy.hpp"
#include "harness.hpp"

extern char** environ;

namespace gpgpu::bench {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct ProcessTime {
  double wall = 0, cpu = 0;  // seconds
};

struct Case {
  std::string name;
  std::vector<std::string> args;   // after the program
  std::vector<std::string> probe;  // the steady-state child's arguments (empty: see
                                   // steady_seconds)
};

enum class Mode { Empty, Warm, DriverOnly };
constexpr Mode modes[] = {Mode::Empty, Mode::Warm, Mode::DriverOnly};
const char* mode_name(Mode m) {
  return m == Mode::Empty ? "empty" : m == Mode::Warm ? "warm" : "driver-only";
}

// This process's environment with the caches pointed at `folder` (see the header).
std::vector<std::string> environment(const fs::path& folder, Mode mode, const std::string& device) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e, name = entry.substr(0, entry.find('='));
    const bool replaced = name == "GPGPU_CACHE_DIR" || name == "GPGPU_CACHE" ||
                          name == "XDG_CACHE_HOME" || name == "MESA_SHADER_CACHE_DIR" ||
                          name == "__GL_SHADER_DISK_CACHE_PATH" ||
                          (name == "GPGPU_DEVICE" && !device.empty());
    if (!replaced) env.push_back(entry);
  }
  env.push_back("XDG_CACHE_HOME=" + folder.string());
  // NVIDIA's driver uses this folder only when it exists: pointed at a missing one it caches
  // nothing, and a program restored from gpgpu's cache then pays its back-end compile at its
  // first dispatch (measured on the H100: 2.9 s for 12 unrolled kernels instead of 0.014 s).
  std::error_code made;
  fs::create_directories(folder / "nvidia", made);
  env.push_back("__GL_SHADER_DISK_CACHE_PATH=" + (folder / "nvidia").string());
  if (mode == Mode::DriverOnly) env.push_back("GPGPU_CACHE=off");
  if (!device.empty()) env.push_back("GPGPU_DEVICE=" + device);
  return env;
}

std::string tail_of(const fs::path& log) {
  std::ifstream in(log);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.size() > 2000 ? text.substr(text.size() - 2000) : text;
}

// Runs this gpgpu with `args` and `env`, output into `log`; its wall and CPU time.
ProcessTime run_child(const std::vector<std::string>& args, const std::vector<std::string>& env,
                      const fs::path& log) {
  const std::string program = fs::read_symlink("/proc/self/exe").string();
  std::vector<char*> argv{const_cast<char*>(program.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&files, 1, 2);
  const auto start = Clock::now();
  pid_t pid = 0;
  const int failed = posix_spawn(&pid, program.c_str(), &files, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&files);
  if (failed != 0) throw Error(fmt::format("bench startup: cannot start {}", program));
  int status = 0;
  rusage usage{};
  ::wait4(pid, &status, 0, &usage);
  ProcessTime t;
  t.wall = ms_since(start) / 1e3;
  t.cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
          1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw Error(fmt::format("bench startup: `gpgpu {}` failed; its log ({}):\n{}",
                            fmt::join(args, " "), log.string(), tail_of(log)));
  }
  return t;
}

// 2^20 random keys (fixed seed) for the sort case.
void write_keys(const fs::path& file) {
  std::mt19937 rng(20);
  std::vector<std::uint32_t> keys(std::size_t{1} << 20);
  for (auto& k : keys) k = static_cast<std::uint32_t>(rng());
  npy::save(file, npy::make<std::uint32_t>({keys.size()}, keys));
}

std::vector<std::string> train_args(const StartupBenchOptions& o, int epochs, const fs::path& out) {
  const std::string e = std::to_string(epochs), train = std::to_string(o.train_limit),
                    test = std::to_string(o.test_limit), folder = out.string();
  std::vector<std::string> a{"train", "--net",        o.net, "--epochs",   e,    "--train-limit",
                             train,   "--test-limit", test,  "--no-plots", "-q", "--out",
                             folder};
  if (!o.data.empty()) a.insert(a.end(), {"--data", o.data.string()});
  return a;
}

std::vector<Case> cases(const StartupBenchOptions& o, const fs::path& work) {
  const fs::path keys = work / "keys.npy", model = work / "model-run" / "model";
  const std::string data = (o.data.empty() ? nn::default_data_dir() : o.data).string();
  const std::vector<std::string> predict{"predict",    model.string(), "--data",
                                         data,         "--limit",      "1",
                                         "--no-plots", "--out",        (work / "predict").string()};
  const std::vector<std::string> predict_probe{"bench",        "startup-probe", "predict",
                                               model.string(), "--data",        data};
  const std::vector<std::string> context{"bench", "startup-probe", "context"},
      kernel{"bench", "startup-probe", "kernel"};
  return {
      {"process start (gpgpu --version)", {"--version"}, {}},
      {"context", context, context},
      {"context + first kernel", kernel, kernel},
      {"gpgpu sort 2^20 keys",
       {"sort", keys.string(), "-o", (work / "sorted.npy").string()},
       {"bench", "startup-probe", "sort", keys.string()}},
      {"gpgpu predict 1 image", predict, predict_probe},
      {fmt::format("gpgpu train --net {} --epochs 1", o.net), train_args(o, 1, work / "train"), {}},
  };
}

// The last line of `log` that starts with `prefix`; "" where none does.
std::string last_line(const fs::path& log, const std::string& prefix) {
  std::ifstream in(log);
  std::string line, found;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) found = line;
  }
  return found;
}

// The steady state of a case: its probe's in-process figure, for training the second
// epoch and its evaluation of a 2-epoch run, 0 for the bare process start.
double steady_seconds(const StartupBenchOptions& o, const Case& c, const fs::path& folder,
                      const fs::path& logs, const fs::path& work) {
  const auto env = environment(folder, Mode::Warm, o.device);
  if (c.args.front() == "--version") return 0;  // nothing to repeat
  if (!c.probe.empty()) {
    const auto log = logs / "steady.log";
    run_child(c.probe, env, log);
    return json::parse(last_line(log, "{")).at("steady_seconds").get<double>();
  }
  run_child(train_args(o, 2, work / "train-steady"), env, logs / "steady-train.log");
  std::ifstream in(work / "train-steady" / "history.json");
  const json epoch = json::parse(in).at("epochs").at(1);
  return epoch.at("seconds").get<double>() + epoch.at("eval_seconds").get<double>();
}

struct Row {
  std::string name, command;
  std::map<Mode, std::vector<ProcessTime>> runs;
  double steady = 0;
  std::map<Mode, std::string> programs;  // train: what was compiled or restored

  // The median wall (or CPU) seconds of the runs in mode m.
  double median_of(Mode m, double ProcessTime::*field = &ProcessTime::wall) const {
    std::vector<double> v;
    for (const auto& t : runs.at(m)) v.push_back(t.*field);
    return median(v);
  }
};

Row measure(const StartupBenchOptions& o, const Case& c, const fs::path& dir, int index) {
  Row row{c.name, "gpgpu " + fmt::format("{}", fmt::join(c.args, " ")), {}, 0, {}};
  const fs::path logs = dir / "logs" / std::to_string(index);
  fs::create_directories(logs);
  fs::path folder;
  for (int r = 0; r < o.repeats; ++r) {
    folder = dir / "caches" / fmt::format("{}-{}", index, r);
    fs::remove_all(folder);
    fs::create_directories(folder);
    for (const Mode m : modes) {
      const auto log = logs / fmt::format("{}-{}.log", mode_name(m), r);
      row.runs[m].push_back(run_child(c.args, environment(folder, m, o.device), log));
      if (const auto p = last_line(log, "programs:"); !p.empty()) row.programs[m] = p.substr(10);
    }
  }
  row.steady = steady_seconds(o, c, folder, logs, dir / "work");
  std::cerr << fmt::format(
      "  {}: empty {:.3f} s, warm {:.3f} s, driver only {:.3f} s, steady {:.3f} s\n", c.name,
      row.median_of(Mode::Empty), row.median_of(Mode::Warm), row.median_of(Mode::DriverOnly),
      row.steady);
  return row;
}

// The model `gpgpu predict` classifies with: a short training run of its own.
void prepare(const StartupBenchOptions& o, const fs::path& dir) {
  const fs::path work = dir / "work";
  fs::create_directories(work);
  write_keys(work / "keys.npy");
  StartupBenchOptions small = o;
  small.train_limit = 256;
  small.test_limit = 100;
  fs::create_directories(dir / "caches" / "model");
  run_child(train_args(small, 1, work / "model-run"),
            environment(dir / "caches" / "model", Mode::Warm, o.device), dir / "model-run.log");
}

std::string markdown(const std::vector<Row>& rows, const std::string& device,
                     const StartupBenchOptions& o) {
  std::string md = fmt::format(
      "# gpgpu bench startup: {} ({}; median of {} fresh processes per cell)\n\n"
      "Wall seconds of a whole process (its CPU seconds in brackets). empty: a new cache "
      "folder (gpgpu's and the driver's); warm: the same folder again; driver only: warm, "
      "with GPGPU_CACHE=off; steady: the same work again inside a warm process.\n\n",
      device, utc_now("%Y-%m-%d %H:%M UTC"), o.repeats);
  Table table(
      {"case", "empty cache", "warm cache", "driver only", "steady state", "warm - steady"});
  for (const auto& r : rows) {
    const auto cell = [&](Mode m) {
      return fmt::format("{:.3f} ({:.2f})", r.median_of(m), r.median_of(m, &ProcessTime::cpu));
    };
    table.add({r.name, cell(Mode::Empty), cell(Mode::Warm), cell(Mode::DriverOnly),
               Cell(r.steady, 3), Cell(r.median_of(Mode::Warm) - r.steady, 3)});
  }
  std::ostringstream text;
  table.print(text, true);
  md += text.str();
  for (const auto& r : rows) {
    for (const Mode m : modes) {
      if (r.programs.count(m) != 0) {
        md += fmt::format("\n{}, {}: programs {}", r.name, mode_name(m), r.programs.at(m));
      }
    }
  }
  return md + "\n";
}

json to_json(const std::vector<Row>& rows, const std::string& device, const std::string& gl,
             const StartupBenchOptions& o) {
  json j{{"device", device},
         {"gl", gl},
         {"date", utc_now("%Y-%m-%d %H:%M UTC")},
         {"net", o.net},
         {"repeats", o.repeats},
         {"cases", json::array()}};
  for (const auto& r : rows) {
    json c{{"case", r.name}, {"command", r.command}, {"steady_seconds", r.steady}};
    for (const Mode m : modes) {
      json runs = json::array();
      for (const auto& t : r.runs.at(m)) runs.push_back({{"wall", t.wall}, {"cpu", t.cpu}});
      c[mode_name(m)] = {{"median_wall_seconds", r.median_of(m)},
                         {"median_cpu_seconds", r.median_of(m, &ProcessTime::cpu)},
                         {"runs", runs}};
      if (r.programs.count(m) != 0) c[mode_name(m)]["programs"] = r.programs.at(m);
    }
    j["cases"].push_back(c);
  }
  return j;
}

}  // namespace

int run_startup_bench(const StartupBenchOptions& o) {
  if (o.repeats < 1) throw ArgumentError("bench startup: --repeats must be at least 1");
  const fs::path dir = fs::absolute(o.out / "startup");
  fs::remove_all(dir / "caches");
  fs::create_directories(dir);
  std::string device, gl;
  {
    const Context ctx({.device = o.device.empty() ? "auto" : o.device, .cache_programs = false});
    device = ctx.info().renderer;
    gl = ctx.info().version;
  }
  std::cerr << "device: " << device << "\npreparing (keys, a small model)\n";
  prepare(o, dir);
  std::vector<Row> rows;
  const auto all = cases(o, dir / "work");
  for (std::size_t i = 0; i < all.size(); ++i) {
    rows.push_back(measure(o, all[i], dir, static_cast<int>(i)));
  }
  fs::remove_all(dir / "caches");
  const std::string md = markdown(rows, device, o);
  write_file(dir / "startup.md", md);
  write_file(dir / "startup.json", to_json(rows, device, gl, o).dump(2) + "\n");
  std::cout << md << "\nwritten: " << (dir / "startup.md").string() << ", startup.json\n";
  return 0;
}

}  // namespace gpgpu::bench
