// bench/memory_table.hpp — a benchmark's results: printed as a table, written as JSON and CSV.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace gpgpu::bench {

// One cell: text as shown, and the number behind it where there is one (for JSON/CSV).
struct Cell {
  Cell(const char* s) : text(s) {}             // NOLINT: cells are written as {"name", 1.5, ...}
  Cell(std::string s) : text(std::move(s)) {}  // NOLINT
  Cell(double v, int decimals = 2);            // NOLINT
  Cell(std::size_t v);                         // NOLINT
  Cell(int v) : Cell(static_cast<std::size_t>(v)) {}  // NOLINT
  static Cell missing() { return Cell("-"); }
  std::string text;
  std::optional<double> number;
};

class ResultTable {
 public:
  ResultTable(std::string name, std::string title, std::vector<std::string> columns);
  void add(std::vector<Cell> row);
  void note(std::string line) { notes_.push_back(std::move(line)); }

  const std::string& name() const { return name_; }
  // Fixed-width text with the title above and the notes below.
  void print(std::ostream& out) const;
  // {"name", "title", "device", "date", "notes": [...], "rows": [{column: value}]}
  std::string json(const std::string& device, const std::string& date) const;
  std::string csv() const;
  // Writes <dir>/<prefix><name>.json and .csv (creating dir); the prefix is "memory-"
  // unless set_file_prefix says otherwise.
  void write(const std::filesystem::path& dir, const std::string& device,
             const std::string& date) const;
  void set_file_prefix(std::string prefix) { prefix_ = std::move(prefix); }

 private:
  std::string name_, title_;
  std::vector<std::string> columns_;
  std::vector<std::vector<Cell>> rows_;
  std::vector<std::string> notes_;
  std::string prefix_ = "memory-";
};

}  // namespace gpgpu::bench
