// Named loggers (api, ptx, jit, exec, mem, driver, rtc) over spdlog, configured by CUCPU_LOG.
//
// CUCPU_LOG is a level ("debug") or a list of component=level pairs ("api=trace,jit=debug");
// a bare level sets every component. Output goes to stderr; the default level is warn.
#pragma once

#include <fmt/core.h>
#include <string_view>
#include <utility>

namespace cucpu::log {

enum class Component : int { Api, Ptx, Jit, Exec, Mem, Driver, Rtc, Count };
enum class Level : int { Trace, Debug, Info, Warn, Error, Off };

bool enabled(Component c, Level l);
void write(Component c, Level l, std::string_view message);

template <typename... A>
void emit(Component c, Level l, fmt::format_string<A...> f, A &&...args) {
  if (enabled(c, l))
    write(c, l, fmt::format(f, std::forward<A>(args)...));
}
template <typename... A> void trace(Component c, fmt::format_string<A...> f, A &&...args) {
  emit(c, Level::Trace, f, std::forward<A>(args)...);
}
template <typename... A> void debug(Component c, fmt::format_string<A...> f, A &&...args) {
  emit(c, Level::Debug, f, std::forward<A>(args)...);
}
template <typename... A> void info(Component c, fmt::format_string<A...> f, A &&...args) {
  emit(c, Level::Info, f, std::forward<A>(args)...);
}
template <typename... A> void warn(Component c, fmt::format_string<A...> f, A &&...args) {
  emit(c, Level::Warn, f, std::forward<A>(args)...);
}
template <typename... A> void error(Component c, fmt::format_string<A...> f, A &&...args) {
  emit(c, Level::Error, f, std::forward<A>(args)...);
}

} // namespace cucpu::log
