// Named spdlog loggers writing to stderr, levels from CUCPU_LOG.
#include "cucpu/support/log.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <string>

namespace cucpu::log {
namespace {

constexpr std::array<const char *, static_cast<int>(Component::Count)> kNames = {
    "api", "ptx", "jit", "exec", "mem", "driver", "rtc"};

std::optional<Level> parseLevel(std::string_view s) {
  if (s == "trace") return Level::Trace;
  if (s == "debug") return Level::Debug;
  if (s == "info") return Level::Info;
  if (s == "warn" || s == "warning") return Level::Warn;
  if (s == "error" || s == "err") return Level::Error;
  if (s == "off") return Level::Off;
  return std::nullopt;
}

struct Loggers {
  std::array<std::atomic<int>, kNames.size()> levels;
  std::array<std::shared_ptr<spdlog::logger>, kNames.size()> loggers;

  Loggers() {
    for (auto &l : levels)
      l = static_cast<int>(Level::Warn);
    if (const char *spec = std::getenv("CUCPU_LOG"))
      configure(spec);
    auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    for (size_t i = 0; i < kNames.size(); ++i) {
      loggers[i] = std::make_shared<spdlog::logger>(std::string("cucpu.") + kNames[i], sink);
      loggers[i]->set_pattern("[cucpu %n %l] %v");
      loggers[i]->set_level(spdlog::level::trace);
    }
  }

  void configure(std::string_view spec) {
    while (!spec.empty()) {
      size_t comma = spec.find(',');
      std::string_view item = spec.substr(0, comma);
      spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
      size_t eq = item.find('=');
      if (eq == std::string_view::npos) {
        if (auto l = parseLevel(item))
          for (auto &v : levels)
            v = static_cast<int>(*l);
        continue;
      }
      auto name = item.substr(0, eq);
      auto l = parseLevel(item.substr(eq + 1));
      for (size_t i = 0; i < kNames.size() && l; ++i)
        if (name == kNames[i])
          levels[i] = static_cast<int>(*l);
    }
  }
};

Loggers &loggers() {
  static Loggers *l = new Loggers(); // never destroyed: logging stays valid during exit
  return *l;
}

} // namespace

bool enabled(Component c, Level l) {
  return static_cast<int>(l) >= loggers().levels[static_cast<int>(c)].load(std::memory_order_relaxed);
}

void write(Component c, Level l, std::string_view message) {
  static constexpr spdlog::level::level_enum kMap[] = {
      spdlog::level::trace, spdlog::level::debug, spdlog::level::info,
      spdlog::level::warn,  spdlog::level::err,   spdlog::level::off};
  loggers().loggers[static_cast<int>(c)]->log(kMap[static_cast<int>(l)], message);
}

} // namespace cucpu::log
