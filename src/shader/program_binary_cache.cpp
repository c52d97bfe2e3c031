#include "shader/program_binary_cache.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstring>

#include "gpgpu/error.hpp"

namespace gpgpu::detail {

namespace {

// The payload: the driver's binary format (4 bytes, little-endian), then its bytes.
constexpr std::size_t format_bytes = 4;

std::vector<std::byte> encode(GLenum format, const std::vector<std::byte>& binary) {
  std::vector<std::byte> payload(format_bytes + binary.size());
  for (std::size_t i = 0; i < format_bytes; ++i) {
    payload[i] = static_cast<std::byte>((format >> (8 * i)) & 0xFFu);
  }
  std::memcpy(payload.data() + format_bytes, binary.data(), binary.size());
  return payload;
}

GLenum decode_format(const std::vector<std::byte>& payload) {
  GLenum format = 0;
  for (std::size_t i = 0; i < format_bytes; ++i) {
    format |= std::to_integer<GLenum>(payload[i]) << (8 * i);
  }
  return format;
}

// A refused binary says the driver changed under the cache: worth one line, not one per
// program.
void warn_refused_once(const std::string& why) {
  static std::atomic<bool> warned{false};
  if (warned.exchange(true)) return;
  cache::warn(fmt::format(
      "the driver refused a cached program binary ({}); such programs are compiled from source "
      "again and their entries replaced",
      why));
}

// Restores `payload` into a new program; 0 with `why` set when the driver refuses it.
GLuint restore(const std::vector<std::byte>& payload, const LinkOptions& options,
               std::string& why) {
  const GLuint program = GL(glCreateProgram());
  try {
    if (options.separable) GL(glProgramParameteri(program, GL_PROGRAM_SEPARABLE, GL_TRUE));
    GL(glProgramBinary(program, decode_format(payload), payload.data() + format_bytes,
                       static_cast<GLsizei>(payload.size() - format_bytes)));
    GLint ok = GL_FALSE;
    GL(glGetProgramiv(program, GL_LINK_STATUS, &ok));
    if (ok == GL_TRUE) return program;
    why = "link status false after glProgramBinary";
  } catch (const ContextLostError&) {
    glDeleteProgram(program);
    throw;
  } catch (const OutOfMemoryError&) {
    glDeleteProgram(program);
    throw;
  } catch (const Error& e) {
    why = e.what();  // e.g. GL_INVALID_ENUM: a format this driver does not read
  }
  glDeleteProgram(program);
  glGetError();
  return 0;
}

}  // namespace

ProgramBinaryCache::ProgramBinaryCache(const DeviceInfo& info, bool wanted)
    : driver_(cache::device_key(info)) {
  if (!wanted || !cache::enabled()) return;
  GLint formats = 0;
  glGetIntegerv(GL_NUM_PROGRAM_BINARY_FORMATS, &formats);
  glGetError();
  if (formats > 0) store_.emplace("programs", format_version);
}

std::string ProgramBinaryCache::key(const std::vector<ShaderStage>& stages,
                                    const LinkOptions& options) const {
  std::string key = fmt::format("gpgpu program binary {}\n{}separable {}\n", format_version,
                                driver_, options.separable ? 1 : 0);
  if (!options.transform_feedback_varyings.empty()) {
    key += fmt::format("transform feedback 0x{:04X} {}\n", options.transform_feedback_mode,
                       fmt::join(options.transform_feedback_varyings, " "));
  }
  for (const auto& stage : stages) {
    key += fmt::format("stage 0x{:04X} {} bytes\n", stage.type, stage.source.size());
    key += stage.source;
  }
  return key;
}

GLuint ProgramBinaryCache::load(const std::vector<ShaderStage>& stages,
                                const LinkOptions& options) const {
  if (!store_) return 0;
  const std::string k = key(stages, options);
  const auto payload = store_->load(k);
  if (!payload) return 0;
  std::string why = "shorter than its format field";
  if (payload->size() > format_bytes) {
    if (const GLuint program = restore(*payload, options, why)) return program;
  }
  warn_refused_once(why);
  store_->remove(k);
  return 0;
}

void ProgramBinaryCache::store(GLuint program, const std::vector<ShaderStage>& stages,
                               const LinkOptions& options) const {
  if (!store_) return;
  GLint length = 0;
  glGetProgramiv(program, GL_PROGRAM_BINARY_LENGTH, &length);
  if (glGetError() != GL_NO_ERROR || length <= 0) return;
  std::vector<std::byte> binary(static_cast<std::size_t>(length));
  GLsizei written = 0;
  GLenum format = 0;
  glGetProgramBinary(program, length, &written, &format, binary.data());
  if (glGetError() != GL_NO_ERROR || written <= 0) return;
  binary.resize(static_cast<std::size_t>(written));
  store_->store(key(stages, options), encode(format, binary));
}

}  // namespace gpgpu::detail
