// Grid files (save_grid_file, load_grid_file) and the check of a grid against the options a
// caller expects (grid_cache.hpp).
#include <unistd.h>

#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "earth/grid/names.hpp"
#include "earth/grid/springs.hpp"
#include "gpgpu/cache.hpp"
#include "gpgpu/earth/grid_cache.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::earth {

namespace fs = std::filesystem;

namespace {

constexpr char file_magic[8] = {'G', 'P', 'G', 'R', 'I', 'D', 'F', '1'};
constexpr std::size_t prefix = sizeof file_magic + sizeof(std::uint64_t);

std::uint64_t checksum(std::span<const std::byte> bytes) {
  return cache::hash64(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::vector<std::byte> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw Error(fmt::format("earth grid: cannot open grid file {}", path.string()));
  const auto size = static_cast<std::size_t>(in.tellg());
  std::vector<std::byte> bytes(size);
  in.seekg(0);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));
  if (!in) throw Error(fmt::format("earth grid: cannot read grid file {}", path.string()));
  return bytes;
}

GridBuild read_grid_file(const fs::path& path) {
  const double t0 = detail::seconds_now();
  const std::vector<std::byte> bytes = read_file(path);
  if (bytes.size() < prefix || std::memcmp(bytes.data(), file_magic, sizeof file_magic) != 0) {
    throw FormatError(
        fmt::format("earth grid: {} is not a gpgpu grid file (write one with "
                    "`gpgpu earth grid --level N --out FILE`)",
                    path.string()));
  }
  std::uint64_t sum = 0;
  std::memcpy(&sum, bytes.data() + sizeof file_magic, sizeof sum);
  const auto image = std::span(bytes).subspan(prefix);
  if (checksum(image) != sum) {
    throw FormatError(fmt::format("earth grid: {} is damaged (checksum mismatch)", path.string()));
  }
  GridBuild b;
  b.report.source = "file";
  b.report.stages.push_back({"read", detail::seconds_now() - t0});
  try {
    b.grid = decode_grid(image, b.report);
  } catch (const FormatError& e) {
    throw FormatError(fmt::format("{}: {}", path.string(), e.what()));
  }
  b.report.seconds = detail::seconds_now() - t0;
  return b;
}

std::string recentred(bool r) {
  return r ? "recentred" : "not recentred";
}

}  // namespace

void save_grid_file(const Grid& grid, const fs::path& path) {
  const std::vector<std::byte> image = encode_grid(grid);
  const std::uint64_t sum = checksum(image);
  const fs::path temporary = path.string() + fmt::format(".tmp-{}", ::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) {
      throw Error(fmt::format("earth grid: cannot write {} (its temporary {} cannot be made)",
                              path.string(), temporary.string()));
    }
    out.write(file_magic, sizeof file_magic);
    out.write(reinterpret_cast<const char*>(&sum), sizeof sum);
    out.write(reinterpret_cast<const char*>(image.data()),
              static_cast<std::streamsize>(image.size()));
    if (!out.flush()) {
      out.close();
      std::error_code ec;
      fs::remove(temporary, ec);
      throw Error(fmt::format("earth grid: failed writing {} (disk full?)", path.string()));
    }
  }
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(temporary, ec);
    throw Error(fmt::format("earth grid: cannot write {} ({})", path.string(), why));
  }
}

Grid load_grid_file(const fs::path& path) {
  return read_grid_file(path).grid;
}

GridBuild load_grid_file(const fs::path& path, const GridOptions& expected) {
  GridBuild b = read_grid_file(path);
  check_grid_matches(b.grid, expected, path.string());
  return b;
}

void check_grid_matches(const Grid& g, const GridOptions& want, const std::string& what) {
  const GridOptions& has = g.options;
  auto refuse = [&](const std::string& holds, const std::string& asks) {
    throw ArgumentError(
        fmt::format("earth grid: {} holds {}; this run asks for {}", what, holds, asks));
  };
  if (g.level != want.level) {
    refuse(fmt::format("a level-{} grid", g.level), fmt::format("level {}", want.level));
  }
  if (has.optimization != want.optimization) {
    refuse(fmt::format("a {} grid", detail::placement_name(has.optimization)),
           fmt::format("a {} grid", detail::placement_name(want.optimization)));
  }
  if (has.recentre != want.recentre) {
    refuse(fmt::format("a grid {}", recentred(has.recentre)),
           fmt::format("one {}", recentred(want.recentre)));
  }
  if (has.control_volume != want.control_volume) {
    refuse(fmt::format("{} control volumes", detail::control_volume_name(has.control_volume)),
           fmt::format("{} control volumes", detail::control_volume_name(want.control_volume)));
  }
  if (has.reorder != want.reorder) {
    refuse(has.reorder ? "cells in Morton order" : "cells in the order they were made",
           want.reorder ? "Morton order" : "the order they were made");
  }
  if (want.optimization == GridOptimization::Spring &&
      (has.spring_beta != want.spring_beta || has.spring_tolerance != want.spring_tolerance ||
       has.spring_max_sweeps != want.spring_max_sweeps)) {
    refuse(fmt::format("springs of beta {}, tolerance {}, {} sweeps", has.spring_beta,
                       has.spring_tolerance, has.spring_max_sweeps),
           fmt::format("beta {}, tolerance {}, {} sweeps", want.spring_beta, want.spring_tolerance,
                       want.spring_max_sweeps));
  }
}

}  // namespace gpgpu::earth
