// Drawing PNGs with gnuplot, shared by the CLI's pictures and the benchmarks' charts: the
// caller writes a script that names its files relative to a directory, and this runs it there.
#pragma once

#include <filesystem>
#include <string>

namespace gpgpu::gnuplot {

// Runs `gnuplot SCRIPT` with `dir` as gnuplot's working directory (gnuplot's own `cd`, so
// this process's stays as it is; no shell is involved), its output in DIR/SCRIPT_STEM.log,
// which is removed when gnuplot succeeds. Returns an empty string on success, else why
// nothing was drawn: gnuplot missing from PATH (and how to draw later), or its exit status
// with the kept log.
std::string draw(const std::filesystem::path& dir, const std::string& script);

}  // namespace gpgpu::gnuplot
