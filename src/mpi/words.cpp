// Typeless transfers of Buffer elements (see words.hpp).
#include "mpi/words.hpp"

namespace gpgpu::mpi::detail {

namespace {

template <class T>
std::span<T> as(std::span<Word> w) {
  return {reinterpret_cast<T*>(w.data()), w.size()};
}
template <class T>
std::span<const T> as(std::span<const Word> w) {
  return {reinterpret_cast<const T*>(w.data()), w.size()};
}

}  // namespace

PendingRun download_words(const Buffer& b, std::span<Word> out, std::size_t offset) {
  switch (b.element_type()) {
    case ElementType::Float32:
      return b.download_async(as<float>(out), offset);
    case ElementType::Int32:
      return b.download_async(as<std::int32_t>(out), offset);
    case ElementType::Uint32:
      return b.download_async(out, offset);
  }
  return {};
}

void upload_words(Buffer& b, std::span<const Word> in, std::size_t offset) {
  switch (b.element_type()) {
    case ElementType::Float32:
      b.upload(as<float>(in), offset);
      return;
    case ElementType::Int32:
      b.upload(as<std::int32_t>(in), offset);
      return;
    case ElementType::Uint32:
      b.upload(in, offset);
      return;
  }
}

}  // namespace gpgpu::mpi::detail
