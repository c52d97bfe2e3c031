#include "gl/probe_memo.hpp"

#include <cstdlib>
#include <map>
#include <mutex>
#include <span>

#include "gpgpu/cache.hpp"

namespace gpgpu::detail {

std::string probe_answer(const ProbeRecord& record, const DeviceInfo& info,
                         const std::function<std::optional<std::string>()>& measure,
                         const std::string& fallback) {
  static std::mutex mutex;
  static auto* answers = new std::map<std::string, std::string>();  // never destroyed: used at exit
  const std::string key =
      std::string(record.store) + "\n" + cache::device_key(info) + record.setting;
  std::lock_guard lock(mutex);
  if (auto it = answers->find(key); it != answers->end()) return it->second;
  const cache::Store disk(record.store, record.format_version, 1u << 20);
  if (const auto bytes = disk.load(key)) {
    std::string text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
    if (record.valid(text)) return answers->emplace(key, std::move(text)).first->second;
  }
  const std::optional<std::string> measured = measure();
  if (!measured) return answers->emplace(key, fallback).first->second;
  disk.store(key, std::as_bytes(std::span(measured->data(), measured->size())));
  return answers->emplace(key, *measured).first->second;
}

int probe_count(const char* store, const DeviceInfo& info,
                const std::function<std::optional<std::string>()>& measure) {
  const ProbeRecord record{store, 1, [](const std::string& t) {
                             return !t.empty() &&
                                    t.find_first_not_of("0123456789") == std::string::npos;
                           }};
  return std::atoi(probe_answer(record, info, measure, "0").c_str());
}

}  // namespace gpgpu::detail
