// AccessTrace: counts and the warp-level coalescing statistics.
#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "gpgpu/access_trace.hpp"
#include "gpgpu/error.hpp"
#include "profile/json_text.hpp"

namespace gpgpu {

namespace {

bool reads(AccessKind k) {
  return k == AccessKind::Read || k == AccessKind::ReadWrite;
}
bool writes(AccessKind k) {
  return k == AccessKind::Write || k == AccessKind::ReadWrite;
}
bool matches(AccessKind k, AccessKind wanted) {
  return wanted == AccessKind::ReadWrite ? k == AccessKind::ReadWrite
                                         : (wanted == AccessKind::Read ? reads(k) : writes(k));
}

}  // namespace

std::size_t AccessTrace::invocations() const {
  std::size_t n = 0;
  for (const auto& a : accesses) n = std::max<std::size_t>(n, std::size_t{a.invocation} + 1);
  return n;
}

std::uint32_t AccessTrace::max_element() const {
  std::uint32_t m = 0;
  for (const auto& a : accesses) m = std::max(m, a.element);
  return m;
}

std::size_t AccessTrace::count(AccessKind kind) const {
  return static_cast<std::size_t>(
      std::count_if(accesses.begin(), accesses.end(),
                    [&](const TracedAccess& a) { return matches(a.kind, kind); }));
}

CoalescingStats AccessTrace::coalescing(AccessKind kind, int warp_size,
                                        std::size_t sector_bytes) const {
  if (warp_size <= 0 || sector_bytes == 0) {
    throw ArgumentError(fmt::format("coalescing: warp size {} and sector bytes {} must be positive",
                                    warp_size, sector_bytes));
  }
  // The k-th access of each invocation, in log order: atomics from one invocation are
  // logged in program order, so the k-th access of every invocation of a warp is the same
  // instruction executed together — one memory request.
  std::vector<const TracedAccess*> selected;
  for (const auto& a : accesses) {
    if (matches(a.kind, kind)) selected.push_back(&a);
  }
  std::stable_sort(
      selected.begin(), selected.end(),
      [](const TracedAccess* x, const TracedAccess* y) { return x->invocation < y->invocation; });
  struct Request {
    std::vector<std::uint64_t> sectors;
    std::size_t lanes = 0;
  };
  std::unordered_map<std::uint64_t, Request> requests;
  const std::size_t group = std::max<std::size_t>(group_size, 1);
  const auto warp = static_cast<std::size_t>(warp_size);
  std::size_t k = 0;
  for (std::size_t i = 0; i < selected.size(); ++i) {
    const auto* a = selected[i];
    k = (i > 0 && selected[i - 1]->invocation == a->invocation) ? k + 1 : 0;
    const std::size_t g = a->invocation / group, lane = a->invocation % group;
    // Key: (work group, warp within it, k); k and warps per group stay far below 2^16.
    const std::uint64_t key = (std::uint64_t{g} << 32) | ((lane / warp) << 16) | k;
    auto& r = requests[key];
    r.sectors.push_back(std::uint64_t{a->element} * element_bytes / sector_bytes);
    ++r.lanes;
  }
  CoalescingStats stats;
  stats.accesses = selected.size();
  stats.requests = requests.size();
  if (requests.empty()) return stats;
  double traced = 0, ideal = 0;
  for (auto& [key, r] : requests) {
    std::sort(r.sectors.begin(), r.sectors.end());
    traced +=
        static_cast<double>(std::unique(r.sectors.begin(), r.sectors.end()) - r.sectors.begin());
    ideal += static_cast<double>((r.lanes * element_bytes + sector_bytes - 1) / sector_bytes);
  }
  stats.sectors_per_request = traced / static_cast<double>(requests.size());
  stats.ideal_sectors_per_request = ideal / static_cast<double>(requests.size());
  return stats;
}

std::string AccessTrace::summary(int warp_size) const {
  std::string out = fmt::format(
      "trace of {}[] ({}, {} bytes per element): {} subscript(s) instrumented, work group "
      "{}x{}x{}\n",
      buffer, glsl_type.empty() ? "type unknown" : glsl_type, element_bytes, sites, local_size[0],
      local_size[1], local_size[2]);
  out += fmt::format("  {} accesses by {} invocations over elements 0..{}{}\n", total_accesses,
                     invocations(), max_element(),
                     truncated ? fmt::format(" (only the first {} kept)", accesses.size()) : "");
  for (const AccessKind kind : {AccessKind::Read, AccessKind::Write}) {
    const auto s = coalescing(kind, warp_size);
    if (s.accesses == 0) continue;
    out += fmt::format(
        "  {}: {} accesses in {} warp requests ({} invocations a warp); {:.2f} 32-byte sectors "
        "per request, ideal {:.2f}: {:.0f}% efficient\n",
        kind == AccessKind::Read ? "reads" : "writes", s.accesses, s.requests, warp_size,
        s.sectors_per_request, s.ideal_sectors_per_request, 100 * s.efficiency());
  }
  return out;
}

std::string AccessTrace::json(int warp_size) const {
  std::string out = fmt::format(
      "{{\"buffer\": {}, \"glsl_type\": {}, \"element_bytes\": {}, \"sites\": {}, "
      "\"local_size\": [{}, {}, {}], \"total_accesses\": {}, \"kept_accesses\": {}, "
      "\"truncated\": {}, \"invocations\": {}, \"max_element\": {}, \"warp_size\": {}",
      detail::json_string(buffer), detail::json_string(glsl_type), element_bytes, sites,
      local_size[0], local_size[1], local_size[2], total_accesses, accesses.size(),
      truncated ? "true" : "false", invocations(), max_element(), warp_size);
  for (const AccessKind kind : {AccessKind::Read, AccessKind::Write}) {
    const auto s = coalescing(kind, warp_size);
    out += fmt::format(
        ", \"{}\": {{\"accesses\": {}, \"requests\": {}, \"sectors_per_request\": {}, "
        "\"ideal_sectors_per_request\": {}, \"efficiency\": {}}}",
        kind == AccessKind::Read ? "reads" : "writes", s.accesses, s.requests,
        detail::json_number(s.sectors_per_request),
        detail::json_number(s.ideal_sectors_per_request), detail::json_number(s.efficiency()));
  }
  return out + "}\n";
}

}  // namespace gpgpu
