#include "datapath_env.hpp"

#include <algorithm>
#include <ctime>
#include <iostream>

#include <fmt/format.h>

#ifdef GPGPU_BENCH_HAVE_CUDA
#include "cuda_matmul.hpp"
#endif

namespace gpgpu::bench::datapath {

namespace {
std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}
}  // namespace

Env::Env(Context& context_, std::ostream& log_, std::filesystem::path out_dir_, int warmup_,
         int repeats_, bool cuda)
    : context(context_),
      log(log_),
      out_dir(std::move(out_dir_)),
      warmup(warmup_),
      repeats(repeats_),
      device(context_.info().renderer),
      date(utc_now()) {
#ifdef GPGPU_BENCH_HAVE_CUDA
  if (cuda) {
    std::string why;
    cuda_ok_ = cuda_ref::available(&why);
    cuda_status_ =
        cuda_ok_ ? "CUDA reference on " + cuda_ref::device_name() : "no CUDA reference: " + why;
  } else {
    cuda_status_ = "CUDA reference turned off";
  }
#else
  (void)cuda;
  cuda_status_ = "this build has no CUDA reference";
#endif
}

double median(std::vector<double> values) {
  if (values.empty()) return -1;
  std::sort(values.begin(), values.end());
  const std::size_t h = values.size() / 2;
  return values.size() % 2 == 1 ? values[h] : 0.5 * (values[h - 1] + values[h]);
}

std::string ratio(double value, double reference) {
  if (value <= 0 || reference <= 0) return "-";
  return fmt::format("{:.2f}x", value / reference);
}

double Env::median_ms(const std::function<void()>& call, int repeats_override) const {
  for (int i = 0; i < warmup; ++i) call();
  std::vector<double> times;
  const int n = repeats_override > 0 ? repeats_override : repeats;
  for (int i = 0; i < n; ++i) {
    const auto start = std::chrono::steady_clock::now();
    call();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  return median(times);
}

void Env::finish(ResultTable& table) const {
  table.set_file_prefix("datapath-");
  table.print(log);
  log << std::flush;
  if (!out_dir.empty()) table.write(out_dir, device, date);
}

}  // namespace gpgpu::bench::datapath
