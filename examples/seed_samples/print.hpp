// Prints arrays the way the seed pages show them: "C = A + B = 11 22 33 44 55 66".
#pragma once

#include <iostream>
#include <string>
#include <vector>

namespace seed {

template <class T>
void print(const std::string& label, const std::vector<T>& values) {
  std::cout << label << " =";
  for (const auto& v : values) std::cout << ' ' << v;
  std::cout << '\n';
}

// Rows of `columns` values each, one per line, as UniMulMat prints its matrices.
template <class T>
void print_rows(const std::string& label, const std::vector<T>& values, std::size_t columns) {
  std::cout << label << " =\n";
  for (std::size_t i = 0; i < values.size(); i += columns) {
    std::cout << ' ';
    for (std::size_t j = i; j < i + columns && j < values.size(); ++j)
      std::cout << ' ' << values[j];
    std::cout << '\n';
  }
}

}  // namespace seed
