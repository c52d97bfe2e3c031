#include "gpgpu/data_path.hpp"

namespace gpgpu {

const char* to_string(StagingMode mode) {
  switch (mode) {
    case StagingMode::Auto:
      return "auto";
    case StagingMode::PersistentMapped:
      return "persistent-mapped";
    case StagingMode::Mapped:
      return "mapped";
    case StagingMode::Direct:
      return "direct";
  }
  return "?";
}

}  // namespace gpgpu
