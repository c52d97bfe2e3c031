// Internal: the answers of the driver probes (gl/probe_program.hpp), kept per device and
// driver in this process and on disk, so that a process making thousands of Contexts, and
// every later process, measures each device once.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "gpgpu/context.hpp"

namespace gpgpu::detail {

struct ProbeRecord {
  const char* store;  // the disk store's name (gpgpu/cache.hpp), one per probe
  std::uint32_t format_version;
  // The answer as text: whether a text read back from disk is one this probe wrote.
  std::function<bool(const std::string&)> valid;
  // What else the answer depends on besides the device and driver (a driver setting).
  std::string setting = {};
};

// The answer of `record`'s probe on `info`'s device: from this process, else from disk, else
// from `measure` (kept in both places). `measure` returns nothing when the probe could not
// run: then `fallback` is this process's answer and nothing goes to disk.
std::string probe_answer(const ProbeRecord& record, const DeviceInfo& info,
                         const std::function<std::optional<std::string>()>& measure,
                         const std::string& fallback);

// probe_answer for a probe whose answer is one count (0 when it could not run), kept in the
// disk store `store`.
int probe_count(const char* store, const DeviceInfo& info,
                const std::function<std::optional<std::string>()>& measure);

}  // namespace gpgpu::detail
