// encode_grid / decode_grid: a grid as its options, centres and triangles (grid_cache.hpp).
#include <cstring>

#include <fmt/format.h>

#include "earth/grid/geometry.hpp"
#include "earth/grid/springs.hpp"
#include "gpgpu/earth/grid_cache.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::earth {

namespace {

constexpr char magic[8] = {'G', 'P', 'G', 'P', 'U', 'G', 'R', 'D'};
// Arrays are stored in the host's byte order; a file from a machine of the other order is
// refused as foreign.
constexpr std::uint32_t byte_order_mark = 0x01020304;

struct Header {
  char magic[8];
  std::uint32_t version, byte_order;
  std::int32_t level, optimization, control_volume, recentre, reorder, max_sweeps;
  double beta, tolerance;
  std::uint64_t cells, triangles;
};

// resize + memcpy: GCC 12 warns falsely (-Wstringop-overflow) about insert() here.
void append(std::vector<std::byte>& out, const void* data, std::size_t bytes) {
  const std::size_t at = out.size();
  out.resize(at + bytes);
  if (bytes > 0) std::memcpy(out.data() + at, data, bytes);
}

Header header_of(const Grid& g) {
  Header h{};
  std::memcpy(h.magic, magic, sizeof magic);
  h.version = grid_format_version;
  h.byte_order = byte_order_mark;
  const GridOptions& o = g.options;
  h.level = g.level;
  h.optimization = static_cast<std::int32_t>(o.optimization);
  h.control_volume = static_cast<std::int32_t>(o.control_volume);
  h.recentre = o.recentre ? 1 : 0;
  h.reorder = o.reorder ? 1 : 0;
  h.max_sweeps = o.spring_max_sweeps;
  h.beta = o.spring_beta;
  h.tolerance = o.spring_tolerance;
  h.cells = g.cell_count();
  h.triangles = g.triangle_count();
  return h;
}

// The header of `bytes`, checked against the length and the grid's own rules.
Header read_header(std::span<const std::byte> bytes) {
  Header h{};
  if (bytes.size() < sizeof h || std::memcmp(bytes.data(), magic, sizeof magic) != 0) {
    throw FormatError("earth grid: not an encoded gpgpu grid (no GPGPUGRD header)");
  }
  std::memcpy(&h, bytes.data(), sizeof h);
  if (h.byte_order != byte_order_mark) {
    throw FormatError("earth grid: written on a machine of the other byte order");
  }
  if (h.version != grid_format_version) {
    throw FormatError(fmt::format("earth grid: format version {} (this gpgpu reads version {})",
                                  h.version, grid_format_version));
  }
  if (h.level < 0 || h.level > max_grid_level || h.cells != cell_count_at(h.level) ||
      h.triangles != 2 * (h.cells - 2) || h.optimization < 0 || h.optimization > 1 ||
      h.control_volume < 0 || h.control_volume > 1) {
    throw FormatError(
        fmt::format("earth grid: damaged header (level {}, {} cells)", h.level, h.cells));
  }
  const std::uint64_t expected = sizeof h + h.cells * sizeof(Vec3) + h.triangles * 12;
  if (bytes.size() != expected) {
    throw FormatError(fmt::format("earth grid: {} bytes where a level-{} grid has {} (truncated?)",
                                  bytes.size(), h.level, expected));
  }
  return h;
}

GridOptions options_of(const Header& h) {
  GridOptions o;
  o.level = h.level;
  o.optimization = static_cast<GridOptimization>(h.optimization);
  o.control_volume = static_cast<ControlVolume>(h.control_volume);
  o.recentre = h.recentre != 0;
  o.reorder = h.reorder != 0;
  o.spring_max_sweeps = h.max_sweeps;
  o.spring_beta = h.beta;
  o.spring_tolerance = h.tolerance;
  return o;
}

}  // namespace

std::vector<std::byte> encode_grid(const Grid& g) {
  const Header h = header_of(g);
  std::vector<std::byte> out;
  append(out, &h, sizeof h);
  append(out, g.centres.data(), g.cell_count() * sizeof(Vec3));
  append(out, g.triangles.data(), g.triangle_count() * 12);
  return out;
}

Grid decode_grid(std::span<const std::byte> bytes, GridBuildReport& report) {
  const double t0 = detail::seconds_now();
  const Header h = read_header(bytes);
  Grid g;
  g.level = h.level;
  g.options = options_of(h);
  g.centres.resize(h.cells);
  g.triangles.resize(h.triangles);
  std::memcpy(g.centres.data(), bytes.data() + sizeof h, h.cells * sizeof(Vec3));
  std::memcpy(g.triangles.data(), bytes.data() + sizeof h + h.cells * sizeof(Vec3),
              h.triangles * 12);
  double t1 = detail::seconds_now();
  report.stages.push_back({"decode", t1 - t0});
  try {
    detail::assign_rings(g);
  } catch (const Error& e) {
    throw FormatError(fmt::format("{} (the encoded grid is damaged)", e.what()));
  }
  const double t2 = detail::seconds_now();
  report.stages.push_back({"rings", t2 - t1});
  detail::build_geometry(g);
  report.stages.push_back({"control volumes", detail::seconds_now() - t2});
  return g;
}

Grid decode_grid(std::span<const std::byte> bytes) {
  GridBuildReport ignored;
  return decode_grid(bytes, ignored);
}

}  // namespace gpgpu::earth
