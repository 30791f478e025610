// Why a driver call fails: the reason an error return gives, logged once by the entry point.
//
// Code that returns an error says why with `return fail(CODE, "...", args)`. The reason is kept
// per thread; the exported wrapper takes it for the error log (cuLogs*, error_log.h) and the
// api logger, and drops it when the call succeeds.
#pragma once

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
  setReason(f, fmt::make_format_args(args...));
  return code;
}

} // namespace cucpu::driver
