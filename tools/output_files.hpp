// The files a command writes, handled so that a bad path costs nothing and a failure leaves
// nothing half-done:
//   reserve()  before any work: creates an empty temporary file beside each destination, so
//              a missing or read-only directory, a destination that is a directory, or the
//              same destination given twice fails at once, naming the option and the path;
//   temporary_path()  where the writer writes (the temporary);
//   commit()   after all were written: renames every temporary onto its destination.
// Temporaries not committed are removed when the object goes, so a failed run leaves every
// destination as it was (all outputs or none).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace gpgpu::cli {

class OutputFiles {
 public:
  OutputFiles() = default;
  ~OutputFiles();
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;

  // `option` names where the path came from ("--out y", "--png") for messages.
  void reserve(const std::string& option, const std::filesystem::path& destination);
  const std::filesystem::path& temporary_path(const std::filesystem::path& destination) const;
  void commit();

 private:
  struct File {
    std::string option;
    std::filesystem::path destination, temporary;
  };
  std::vector<File> files_;
  bool committed_ = false;
};

}  // namespace gpgpu::cli
