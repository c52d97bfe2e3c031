// `gpgpu bench startup` (startup_bench.hpp): fresh processes timed with an empty, a warm and a
// driver-only cache, and the steady state beside them.
#include "startup_bench.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <iostream>
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
using Args = std::vector<std::string>;

enum Mode { Empty, Warm, DriverOnly };
constexpr Mode modes[] = {Empty, Warm, DriverOnly};
constexpr const char* mode_names[] = {"empty", "warm", "driver-only"};

// This process's environment with every cache in `folder` (XDG_CACHE_HOME moves gpgpu's and
// Mesa's), gpgpu's off in DriverOnly mode.
Args environment(const fs::path& folder, Mode mode, const std::string& device) {
  Args env;
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
  if (mode == DriverOnly) env.push_back("GPGPU_CACHE=off");
  if (!device.empty()) env.push_back("GPGPU_DEVICE=" + device);
  return env;
}

// Runs this gpgpu with `args` and `env`, output into `log`; its wall and CPU seconds.
std::pair<double, double> run_child(const Args& args, const Args& env, const fs::path& log) {
  const std::string program = fs::read_symlink("/proc/self/exe").string();
  const auto pointers = [](std::vector<char*> out, const Args& strings) {
    for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
    out.push_back(nullptr);
    return out;
  };
  auto argv = pointers({const_cast<char*>(program.c_str())}, args), envp = pointers({}, env);
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
  const double wall = ms_since(start) / 1e3,
               cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                     1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::ifstream in(log);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    throw Error(fmt::format("bench startup: `gpgpu {}` failed; its log ({}):\n{}",
                            fmt::join(args, " "), log.string(),
                            text.size() > 2000 ? text.substr(text.size() - 2000) : text));
  }
  return {wall, cpu};
}

Args train_args(const StartupBenchOptions& o, int epochs, const fs::path& out) {
  const std::string e = std::to_string(epochs), train = std::to_string(o.train_limit),
                    test = std::to_string(o.test_limit), folder = out.string();
  Args a{"train",        "--net", o.net,        "--epochs", e,       "--train-limit", train,
         "--test-limit", test,    "--no-plots", "-q",       "--out", folder};
  if (!o.data.empty()) a.insert(a.end(), {"--data", o.data.string()});
  return a;
}

struct Case {
  std::string name;
  Args args;   // after the program
  Args probe;  // the steady-state child's arguments (empty: see steady_seconds)
};

std::vector<Case> cases(const StartupBenchOptions& o, const fs::path& work) {
  const std::string keys = (work / "keys.npy").string(),
                    model = (work / "model-run" / "model").string(),
                    data = (o.data.empty() ? nn::default_data_dir() : o.data).string();
  const auto probe = [](Args a) {
    a.insert(a.begin(), {"bench", "startup-probe"});
    return a;
  };
  return {
      {"process start (gpgpu --version)", {"--version"}, {}},
      {"context", probe({"context"}), probe({"context"})},
      {"context + first kernel", probe({"kernel"}), probe({"kernel"})},
      {"gpgpu sort 2^20 keys",
       {"sort", keys, "-o", (work / "sorted.npy").string()},
       probe({"sort", keys})},
      {"gpgpu predict 1 image",
       {"predict", model, "--data", data, "--limit", "1", "--no-plots", "--out",
        (work / "predict").string()},
       probe({"predict", model, "--data", data})},
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
  const auto env = environment(folder, Warm, o.device);
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

// Runs case `c` in every mode, o.repeats times, each repeat in a new cache folder, then its
// steady state: adds its row to `table` and the programs a mode compiled or restored (train
// prints them) to `programs`; returns its JSON.
json measure(const StartupBenchOptions& o, const Case& c, const fs::path& dir, int index,
             Table& table, std::string& programs) {
  const fs::path logs = dir / "logs" / std::to_string(index);
  fs::create_directories(logs);
  json j{{"case", c.name}, {"command", fmt::format("gpgpu {}", fmt::join(c.args, " "))}};
  std::array<std::vector<double>, 3> wall, cpu;  // seconds of each run, by mode
  fs::path folder;
  for (int r = 0; r < o.repeats; ++r) {
    folder = dir / "caches" / fmt::format("{}-{}", index, r);
    fs::remove_all(folder);
    fs::create_directories(folder);
    for (const Mode m : modes) {
      const auto log = logs / fmt::format("{}-{}.log", mode_names[m], r);
      const auto [w, u] = run_child(c.args, environment(folder, m, o.device), log);
      wall[m].push_back(w);
      cpu[m].push_back(u);
      j[mode_names[m]]["runs"].push_back({{"wall", w}, {"cpu", u}});
      if (const auto p = last_line(log, "programs:"); !p.empty()) {
        j[mode_names[m]]["programs"] = p.substr(10);
      }
    }
  }
  const double steady = steady_seconds(o, c, folder, logs, dir / "work");
  j["steady_seconds"] = steady;
  std::vector<Cell> row{c.name};
  for (const Mode m : modes) {
    json& mode = j[mode_names[m]];
    mode["median_wall_seconds"] = median(wall[m]);
    mode["median_cpu_seconds"] = median(cpu[m]);
    row.emplace_back(fmt::format("{:.3f} ({:.2f})", median(wall[m]), median(cpu[m])));
    if (mode.contains("programs")) {
      programs += fmt::format("\n{}, {}: programs {}", c.name, mode_names[m],
                              mode["programs"].get<std::string>());
    }
  }
  row.insert(row.end(), {Cell(steady, 3), Cell(median(wall[Warm]) - steady, 3)});
  table.add(row);
  std::cerr << fmt::format(
      "  {}: empty {:.3f} s, warm {:.3f} s, driver only {:.3f} s, steady {:.3f} s\n", c.name,
      median(wall[Empty]), median(wall[Warm]), median(wall[DriverOnly]), steady);
  return j;
}

// The keys `gpgpu sort` sorts (2^20, a fixed seed), and the model `gpgpu predict` classifies
// with: a short training run of its own.
void prepare(const StartupBenchOptions& o, const fs::path& dir) {
  const fs::path work = dir / "work";
  fs::create_directories(work);
  std::mt19937 rng(20);
  std::vector<std::uint32_t> keys(std::size_t{1} << 20);
  for (auto& k : keys) k = static_cast<std::uint32_t>(rng());
  npy::save(work / "keys.npy", npy::make<std::uint32_t>({keys.size()}, keys));
  StartupBenchOptions small = o;
  small.train_limit = 256;
  small.test_limit = 100;
  fs::create_directories(dir / "caches" / "model");
  run_child(train_args(small, 1, work / "model-run"),
            environment(dir / "caches" / "model", Warm, o.device), dir / "model-run.log");
}

}  // namespace

int run_startup_bench(const StartupBenchOptions& o) {
  if (o.repeats < 1) throw ArgumentError("bench startup: --repeats must be at least 1");
  const fs::path dir = fs::absolute(o.out / "startup");
  fs::remove_all(dir / "caches");
  fs::create_directories(dir);
  const DeviceInfo info =
      Context({.device = o.device.empty() ? "auto" : o.device, .cache_programs = false}).info();
  std::cerr << "device: " << info.renderer << "\npreparing (keys, a small model)\n";
  prepare(o, dir);
  Table table(
      {"case", "empty cache", "warm cache", "driver only", "steady state", "warm - steady"});
  std::string programs;
  json report{{"device", info.renderer},
              {"gl", info.version},
              {"net", o.net},
              {"repeats", o.repeats},
              {"cases", json::array()}};
  const auto all = cases(o, dir / "work");
  for (std::size_t i = 0; i < all.size(); ++i) {
    report["cases"].push_back(measure(o, all[i], dir, static_cast<int>(i), table, programs));
  }
  fs::remove_all(dir / "caches");
  report["date"] = utc_now("%Y-%m-%d %H:%M UTC");
  std::ostringstream md;
  md << fmt::format(
      "# gpgpu bench startup: {} ({}; median of {} fresh processes per cell)\n\n"
      "Wall seconds of a whole process (its CPU seconds in brackets). empty: a new cache "
      "folder (gpgpu's and the driver's); warm: the same folder again; driver only: warm, "
      "with GPGPU_CACHE=off; steady: the same work again inside a warm process.\n\n",
      info.renderer, report["date"].get<std::string>(), o.repeats);
  table.print(md, true);
  md << programs << "\n";
  write_file(dir / "startup.md", md.str());
  write_file(dir / "startup.json", report.dump(2) + "\n");
  std::cout << md.str() << "\nwritten: " << (dir / "startup.md").string() << ", startup.json\n";
  return 0;
}

}  // namespace gpgpu::bench
