#include "memory_table.hpp"

#include <algorithm>
#include <fstream>
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpgpu/error.hpp"

namespace gpgpu::bench {

Cell::Cell(double v, int decimals) : text(fmt::format("{:.{}f}", v, decimals)), number(v) {}
Cell::Cell(std::size_t v) : text(std::to_string(v)), number(static_cast<double>(v)) {}

ResultTable::ResultTable(std::string name, std::string title, std::vector<std::string> columns)
    : name_(std::move(name)), title_(std::move(title)), columns_(std::move(columns)) {}

void ResultTable::add(std::vector<Cell> row) {
  if (row.size() != columns_.size()) {
    throw Error(fmt::format("table {}: a row of {} cells for {} columns", name_, row.size(),
                            columns_.size()));
  }
  rows_.push_back(std::move(row));
}

void ResultTable::print(std::ostream& out) const {
  std::vector<std::size_t> width(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    width[c] = columns_[c].size();
    for (const auto& row : rows_) width[c] = std::max(width[c], row[c].text.size());
  }
  out << "\n" << title_ << "\n";
  // Columns of text are aligned left, columns of numbers right.
  std::vector<bool> left(columns_.size(), false);
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    for (const auto& row : rows_) {
      if (!row[c].number && row[c].text != "-") {
        left[c] = true;
      }
    }
  }
  auto line = [&](auto cell_text) {
    std::string s;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const std::string gap = c == 0 ? "" : "  ";
      s += left[c] ? fmt::format("{}{:<{}}", gap, cell_text(c), width[c])
                   : fmt::format("{}{:>{}}", gap, cell_text(c), width[c]);
    }
    out << s << "\n";
  };
  line([&](std::size_t c) { return columns_[c]; });
  std::size_t total = 0;
  for (auto w : width) total += w + 2;
  out << std::string(total - 2, '-') << "\n";
  for (const auto& row : rows_) line([&](std::size_t c) { return row[c].text; });
  for (const auto& n : notes_) out << "  " << n << "\n";
}

std::string ResultTable::json(const std::string& device, const std::string& date) const {
  nlohmann::ordered_json doc;
  doc["name"] = name_;
  doc["title"] = title_;
  doc["device"] = device;
  doc["date"] = date;
  doc["notes"] = notes_;
  doc["rows"] = nlohmann::ordered_json::array();
  for (const auto& row : rows_) {
    nlohmann::ordered_json r;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      if (row[c].number) {
        r[columns_[c]] = *row[c].number;
      } else if (row[c].text == "-") {
        r[columns_[c]] = nullptr;
      } else {
        r[columns_[c]] = row[c].text;
      }
    }
    doc["rows"].push_back(r);
  }
  return doc.dump(2) + "\n";
}

std::string ResultTable::csv() const {
  auto quote = [](const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char ch : s) {
      if (ch == '"') q += '"';
      q += ch;
    }
    q += '"';
    return q;
  };
  std::string out;
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (c > 0) out += ',';
    out += quote(columns_[c]);
  }
  out += '\n';
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const std::string value = row[c].number ? fmt::format("{}", *row[c].number)
                                              : (row[c].text == "-" ? "" : row[c].text);
      if (c > 0) out += ',';
      out += quote(value);
    }
    out += '\n';
  }
  return out;
}

void ResultTable::write(const std::filesystem::path& dir, const std::string& device,
                        const std::string& date) const {
  std::filesystem::create_directories(dir);
  for (const auto& [ext, text] :
       {std::pair{".json", json(device, date)}, std::pair{".csv", csv()}}) {
    const auto path = dir / (prefix_ + name_ + ext);
    std::ofstream file(path);
    file << text;
    if (!file) throw Error(fmt::format("cannot write {}", path.string()));
  }
}

}  // namespace gpgpu::bench
