#include "primitives_cli.hpp"

#include <unistd.h>

#include <fstream>
#include <utility>

#include <fmt/format.h>

#include "gpgpu/error.hpp"

namespace gpgpu::cli {

void add_file_options(CLI::App& sub, PrimitiveFiles& files, bool out_optional) {
  sub.add_option("input", files.input, "IN.npy: float32, int32 or uint32, any shape (read flat)")
      ->required()
      ->check(CLI::ExistingFile);
  auto* out = sub.add_option("-o,--out", files.output, "OUT.npy: where the result goes");
  if (!out_optional) out->required();
  sub.add_option("-d,--device", files.device, "auto, an index, or a word of the renderer");
}

void add_op_option(CLI::App& sub, std::string& op) {
  sub.add_option("--op", op, "the operator")
      ->check(CLI::IsMember({"sum", "product", "min", "max"}))
      ->default_str("sum");
}

Op op_from_name(const std::string& name) {
  Op op = Op::Sum;
  if (!parse_op(name, op)) {
    throw ArgumentError(fmt::format("--op '{}': expected sum, product, min or max", name));
  }
  return op;
}

PrimitiveInput load_input(const Context& ctx, const std::string& path) {
  PrimitiveInput in;
  in.array = npy::load(path);
  in.count = in.array.element_count();
  if (in.count == 0) return in;
  switch (in.array.dtype) {
    case npy::DType::Float32:
      in.buffer = Buffer::from(ctx, std::as_const(in.array).view<float>());
      break;
    case npy::DType::Int32:
      in.buffer = Buffer::from(ctx, std::as_const(in.array).view<std::int32_t>());
      break;
    case npy::DType::Uint32:
      in.buffer = Buffer::from(ctx, std::as_const(in.array).view<std::uint32_t>());
      break;
  }
  return in;
}

void save_atomically(const std::filesystem::path& path, const npy::Array& array) {
  const std::vector<std::byte> bytes = npy::serialize(array);
  std::filesystem::path temporary = path;
  temporary += fmt::format(".tmp.{}", ::getpid());
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file) throw Error(fmt::format("cannot open {} for writing", temporary.string()));
    file.write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    file.close();
    if (!file) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      throw Error(fmt::format("cannot write {}", temporary.string()));
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw Error(fmt::format("cannot rename {} to {}: {}", temporary.string(), path.string(),
                            error.message()));
  }
}

}  // namespace gpgpu::cli
