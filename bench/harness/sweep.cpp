// Contenders x sizes (sweep.hpp).
#include "sweep.hpp"

#include <algorithm>
#include <bit>
#include <iostream>
#include <utility>

#include <fmt/format.h>

namespace gpgpu::bench {

Measured gpu_timed(const Context& ctx, const Budget& budget, const std::function<void()>& call,
                   const std::function<void()>& setup) {
  const Timing t = profile(ctx, budget, call, setup);
  const bool gpu = !ctx.info().is_software && t.gpu_ms >= 0;
  return {gpu ? t.gpu_ms : t.wall_ms, t.runs, gpu ? "GPU timestamps" : "fenced wall clock"};
}

Measured wall_timed(const Budget& budget, const std::function<void()>& call) {
  const auto ms = wall_times(budget, call);
  return {median(ms), static_cast<int>(ms.size()), "steady_clock"};
}

std::string size_label(std::size_t n) {
  return std::has_single_bit(n) ? fmt::format("2^{}", std::countr_zero(n)) : std::to_string(n);
}

Table points_table(const std::string& name, const std::string& title,
                   const std::string& group_column, const std::vector<Point>& points) {
  Table t(name, title,
          {group_column, "contender", "family", "n", "ms", "gbps", "gelements_per_s", "bytes",
           "runs", "timing", "status", "note"});
  for (const auto& p : points) {
    t.add({p.group, p.contender, p.family, p.n, p.ms, p.gbps, p.gelements_per_s, p.bytes, p.runs,
           p.timing, p.status, p.note});
  }
  return t;
}

Point measure(Point point, double bytes_per_element, const std::function<Outcome()>& body) {
  point.bytes = bytes_per_element * static_cast<double>(point.n);
  try {
    const Outcome r = body();
    point.ms = r.m.ms;
    point.runs = r.m.runs;
    point.timing = r.m.timing;
    point.gbps = gbps(point.bytes, point.ms);
    point.gelements_per_s = gbps(static_cast<double>(point.n), point.ms);
    point.status = r.check.ok ? "ok" : "WRONG";
    point.note = r.check.note;
  } catch (const std::exception& e) {
    point.status = "error";
    point.note = e.what();
  }
  return point;
}

void Sweep::attempt(Point p, double bytes_per_element, const std::function<Outcome()>& body) {
  const std::string key = p.group + "/" + p.contender;
  if (const auto it = stopped_.find(key); it != stopped_.end()) {
    p.status = "skipped";
    p.note = it->second;
  } else if (p = measure(std::move(p), bytes_per_element, body); p.status == "error") {
    std::cerr << fmt::format("  {} {} n={}: error: {}\n", p.group, p.contender, p.n, p.note);
  } else {
    if (p.ms > max_ms_) stopped_[key] = fmt::format("n={} took {:.1f} s per run", p.n, p.ms / 1000);
    std::cerr << fmt::format("  {:<10} {:<8} n={:<10} {:>10.4f} ms {:>8.1f} GB/s  {}\n", p.group,
                             p.contender, p.n, p.ms, p.gbps, p.status == "ok" ? "" : p.note);
  }
  points.push_back(std::move(p));
}

const Point* Sweep::find(const std::string& group, const std::string& contender, std::size_t n,
                         bool ok) const {
  const auto it = std::find_if(points.begin(), points.end(), [&](const Point& p) {
    return p.group == group && p.contender == contender && p.n == n;
  });
  return it == points.end() || (ok && it->status != "ok") ? nullptr : &*it;
}

std::vector<std::string> Sweep::contenders(const std::string& group) const {
  std::vector<std::string> names;
  for (const auto& p : points) {
    if (p.group == group && std::find(names.begin(), names.end(), p.contender) == names.end())
      names.push_back(p.contender);
  }
  return names;
}

Table Sweep::table(const std::string& group, const std::string& title,
                   const std::vector<std::size_t>& sizes) const {
  const auto names = contenders(group);
  std::vector<std::string> columns{"n"};
  columns.insert(columns.end(), names.begin(), names.end());
  Table table("", title, columns);
  for (std::size_t n : sizes) {
    std::vector<Cell> line{size_label(n)};
    bool any = false;
    for (const auto& c : names) {
      const Point* p = find(group, c, n);
      any |= p != nullptr;
      line.emplace_back(!p ? ""
                        : p->status != "ok"
                            ? p->status
                            : fmt::format("{:.3g} GB/s, {:.3g} ms", p->gbps, p->ms));
    }
    if (any) table.add(std::move(line));
  }
  return table;
}

void Sweep::plot(Chart& chart, const std::string& chart_name, const std::string& group,
                 const std::string& png, const std::string& title,
                 const std::vector<std::size_t>& sizes) const {
  std::vector<std::string> series;
  for (const auto& c : contenders(group)) {
    std::string rows;
    for (std::size_t n : sizes) {
      if (const Point* p = find(group, c, n, true)) rows += fmt::format("{} {:.6g}\n", n, p->gbps);
    }
    if (const int block = chart.block(fmt::format("{} {}", group, c), rows); block >= 0) {
      series.push_back(fmt::format("'{}.dat' index {} using 1:2 with linespoints lw 2 title {}",
                                   chart_name, block, gnuplot_string(c)));
    }
  }
  chart.plot(png, fmt::format("set title {}\n", gnuplot_string(title)), series);
}

void Sweep::print_problems(std::ostream& out) const {
  const char* heading = "Not measured or wrong:\n";
  for (const auto& p : points) {
    if (p.status == "ok") continue;
    out << std::exchange(heading, "")
        << fmt::format("- {} {} n={}: {} — {}\n", p.group, p.contender, size_label(p.n), p.status,
                       p.note);
  }
}

}  // namespace gpgpu::bench
