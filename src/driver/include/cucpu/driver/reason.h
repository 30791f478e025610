// Why a driver call fails: the reason an error return gives, logged once by the entry point.
//
// Code that returns an error says why with `return fail(CODE, "...", args)`. The reason is kept
// per thread when the error log (cuLogs*, error_log.h) or the api logger at debug level will
// read it; the exported wrapper takes it, and drops it when the call succeeds.
#pragma once

#include "cucpu/driver/error_log.h"
#include "cucpu/support/log.h"

#include <cuda.h>
#include <string>

namespace cucpu::driver {

void setReason(fmt::string_view format, fmt::format_args args);

// The reason given since the last call to takeReason on this thread ("" when none), cleared.
std::string takeReason();
// Forgets the reason (a call that succeeded after a failure it recovered from).
void discardReason();

// Always inlined, so the compiler sees which code a check returns.
template <typename... A>
[[gnu::always_inline]] inline CUresult fail(CUresult code, fmt::format_string<A...> f,
                                            A &&...args) {
  // Formatted only where someone reads it: polling loops get NOT_READY without the cost.
  if (errorlog::logged(code) || log::enabled(log::Component::Api, log::Level::Debug))
    setReason(f, fmt::make_format_args(args...));
  return code;
}

} // namespace cucpu::driver
