// Why a driver call fails: the reason an error return gives, logged once by the entry point.
//
// Code that returns an error says why with `return fail(CODE, "...", args)`. The reason is kept
// (per thread) only while the api logger is at debug level or finer, so the call costs nothing
// otherwise; the exported wrapper takes it and logs one line per failed call.
#pragma once

#include "cucpu/support/log.h"

#include <cuda.h>
#include <string>

namespace cucpu::driver {

// Whether reasons are being kept (CUCPU_LOG=api=debug or trace).
inline bool reasonsWanted() { return log::enabled(log::Component::Api, log::Level::Debug); }

void setReason(fmt::string_view format, fmt::format_args args);

// The reason given since the last call to takeReason on this thread ("" when none), cleared.
std::string takeReason();

// Always inlined, so the compiler sees which code a check returns.
template <typename... A>
[[gnu::always_inline]] inline CUresult fail(CUresult code, fmt::format_string<A...> f,
                                            A &&...args) {
  if (reasonsWanted())
    setReason(f, fmt::make_format_args(args...));
  return code;
}

} // namespace cucpu::driver
