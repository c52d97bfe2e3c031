// bench/harness/sweep.hpp — contenders x sizes on top of the harness: each contender's point at
// each size timed and then checked against a reference (a wrong result is reported as WRONG, never
// as a time alone), and a contender that got too slow at one size skipped at the larger ones.
// `gpgpu bench primitives` is built on it.
#pragma once

#include <functional>
#include <iosfwd>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "harness.hpp"

namespace gpgpu::bench {

// A result compared with its reference.
struct Check {
  bool ok = true;
  std::string note;  // what was compared, and the worst error or first mismatch
};

// The median time of one call, how many runs it came from, and which clock.
struct Measured {
  double ms = -1;
  int runs = 0;
  std::string timing;
};

struct Outcome {
  Measured m;
  Check check;
};

// `call` timed by gpgpu::Profiler (`setup` before each run, untimed): GPU timestamps where the
// device has working timer queries, else the fenced wall clock (llvmpipe's timer queries do not see
// shader work).
Measured gpu_timed(const Context& ctx, const Budget& budget, const std::function<void()>& call,
                   const std::function<void()>& setup = {});
// `call` (which returns with its work done) timed by steady_clock.
Measured wall_timed(const Budget& budget, const std::function<void()>& call);

// One contender's point at one size.
struct Point {
  std::string group;      // what is timed (a primitive)
  std::string contender;  // who does it
  std::string family;     // the contender's kind (gpgpu, cuda, cpu)
  std::size_t n = 0;
  double ms = -1;    // median time of one call
  double bytes = 0;  // the traffic counted for GB/s
  double gbps = 0, gelements_per_s = 0;
  int runs = 0;
  std::string timing{};  // where the time comes from
  std::string status{};  // ok, WRONG, skipped, error
  std::string note{};    // the check, or why it was skipped
};

// "2^k" for a power of two, else the number.
std::string size_label(std::size_t n);

// Every field of each point, a row each: JSON and CSV (`group_column` names Point::group).
Table points_table(const std::string& name, const std::string& title,
                   const std::string& group_column, const std::vector<Point>& points);

// `point` with body's time, GB/s (`bytes_per_element` counted) and check, or status "error" with
// the message when body throws.
Point measure(Point point, double bytes_per_element, const std::function<Outcome()>& body);

class Sweep {
 public:
  explicit Sweep(double max_seconds_per_run = std::numeric_limits<double>::infinity())
      : max_ms_(1000 * max_seconds_per_run) {}

  // Adds `point` with body's outcome, and logs it to std::cerr: skipped when its contender took
  // longer than max_seconds_per_run at a smaller size of the group.
  void attempt(Point point, double bytes_per_element, const std::function<Outcome()>& body);
  // The point of a contender at n; only where it is ok with `ok`.
  const Point* find(const std::string& group, const std::string& contender, std::size_t n,
                    bool ok = false) const;
  // The contenders of a group, in the order they first ran.
  std::vector<std::string> contenders(const std::string& group) const;

  // A group's table: a row per size it ran at, a column per contender ("GB/s, ms", or the status
  // where it is not ok).
  Table table(const std::string& group, const std::string& title,
              const std::vector<std::size_t>& sizes) const;
  // A group's GB/s against n, a series per contender, as `png` in `chart` (whose data file is
  // <chart name>.dat).
  void plot(Chart& chart, const std::string& chart_name, const std::string& group,
            const std::string& png, const std::string& title,
            const std::vector<std::size_t>& sizes) const;
  // "Not measured or wrong:" and a line per point that is not ok; nothing when all are.
  void print_problems(std::ostream& out) const;

  std::vector<Point> points;

 private:
  double max_ms_;
  std::map<std::string, std::string> stopped_;  // "group/contender" -> why it stopped growing
};

}  // namespace gpgpu::bench
