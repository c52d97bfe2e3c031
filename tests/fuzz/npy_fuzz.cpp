// libFuzzer target for gpgpu::npy::parse.
//
// Any gpgpu::Error is a correct verdict on a malformed input. A crash, a sanitizer report,
// any other exception, or an accepted input that is not self-consistent is a bug: an
// accepted array must hold exactly the bytes its shape needs and must survive a round
// trip through serialize() unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "gpgpu/error.hpp"
#include "gpgpu/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  try {
    const gpgpu::npy::Array array = gpgpu::npy::parse(bytes, "fuzz-input.npy");
    if (array.data.size() != array.element_count() * gpgpu::npy::dtype_size(array.dtype)) {
      std::abort();
    }
    const gpgpu::npy::Array again =
        gpgpu::npy::parse(gpgpu::npy::serialize(array), "fuzz-round-trip.npy");
    if (again.dtype != array.dtype || again.shape != array.shape || again.data != array.data) {
      std::abort();
    }
  } catch (const gpgpu::Error&) {
    // The expected outcome for a malformed input.
  }
  return 0;
}
