// gpgpu/earth/grid_cache.hpp — grids kept on disk: the cache, grid files, grids as bytes.
//
//   namespace ge = gpgpu::earth;
//   ge::Grid g = ge::cached_grid({.level = 8}).grid;      // read from the cache, or built + kept
//   ge::save_grid_file(g, "level8.grid");                  // make the mesh once, ship it
//   ge::Grid same = ge::load_grid_file("level8.grid", {.level = 8});  // checked: level, kind
//   std::vector<std::byte> bytes = ge::encode_grid(g);     // e.g. MPI_Bcast from rank 0
//   ge::Grid again = ge::decode_grid(bytes);
//
// The cache is gpgpu's disk cache (gpgpu/cache.hpp): $GPGPU_CACHE_DIR, else
// $XDG_CACHE_HOME/gpgpu, else ~/.cache/gpgpu, folder earth-grids/, nothing read or written
// when GPGPU_CACHE=off. An entry's key is every option that changes the grid (level, point
// placement, control volumes, recentring, spring beta, tolerance and sweeps, reordering)
// and the format version; GridOptions::device is not part of it (it changes how a grid is
// made, not which). Entries are written atomically; a truncated, corrupt or foreign entry is
// a miss with one warning, removed and rebuilt. Processes that miss the same grid at once
// take turns on a lock file beside the entry: the first builds and stores it, the others
// wait and read it (MPI ranks on one machine build a grid once). The store is bounded to
// grid_cache_limit bytes, least recently used entries out first.
//
// What is kept: the centres, the triangles and the options, 48 bytes a cell (level 8
// 31 MB, level 10 503 MB, level 11 2.0 GB). Neighbours, dual triangles and control volumes
// are recomputed on reading by the code that builds them (in parallel, float64, ~1% of a
// build), so a grid read back is bit for bit the grid that was built, and a file is a tenth
// of the 441 bytes a cell the Grid holds in memory.
//
// A grid file is the same bytes behind a magic number and a checksum. load_grid_file throws
// FormatError for a file that is not one, is damaged or has another format version, and
// ArgumentError when it holds another grid than `expected` (naming both levels or kinds).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "gpgpu/earth/grid.hpp"

namespace gpgpu::earth {

// Layout version of encoded grids (cache entries and files); files of another are refused.
inline constexpr std::uint32_t grid_format_version = 1;
// The cache's size bound for grids: one level-11 grid (2.0 GB) and every level below it of
// one kind (0.7 GB) fit, with room for a second kind's smaller levels.
inline constexpr std::uint64_t grid_cache_limit = 4ull << 30;

// The grid for `options`: from the disk cache, else built (build_grid_reported, on `gpu`
// when given) and stored. The report says which ("cache" or "built").
GridBuild cached_grid(const GridOptions& options, const Context* gpu = nullptr);

// The cache key of a grid: the options that change it.
std::string grid_cache_key(const GridOptions& options);

// @{
// A grid as bytes and back. decode_grid throws FormatError for bytes that are not an
// encoded grid of this format version, or that do not make a valid mesh.
std::vector<std::byte> encode_grid(const Grid& grid);
Grid decode_grid(std::span<const std::byte> bytes);
// @}
// What decode_grid spends its time on, as a report ("read" is left to the caller).
Grid decode_grid(std::span<const std::byte> bytes, GridBuildReport& report);

// @{
// Grid files: written atomically (a temporary, then renamed).
void save_grid_file(const Grid& grid, const std::filesystem::path& path);
Grid load_grid_file(const std::filesystem::path& path);
// @}
// The same, checked against the grid `expected` describes (level, point placement, control
// volumes, recentring, spring parameters, reordering).
GridBuild load_grid_file(const std::filesystem::path& path, const GridOptions& expected);

// Throws ArgumentError when `grid` is not the grid `expected` describes; `what` names the
// grid in the message (a file name).
void check_grid_matches(const Grid& grid, const GridOptions& expected, const std::string& what);

}  // namespace gpgpu::earth
