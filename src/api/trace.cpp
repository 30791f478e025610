// Formatting of the API trace.
#include "trace.h"

#include "error_text.h"

#include "cucpu/driver/context.h"
#include "cucpu/driver/error_log.h"
#include "cucpu/driver/sanitizer.h"
#include "cucpu/support/log.h"

#include <string>

namespace cucpu::api {

bool tracing() { return log::enabled(log::Component::Api, log::Level::Trace); }

namespace {

// "NAME (code): reason", the part of a logged call after its arrow.
std::string outcome(CUresult r, const std::string &reason) {
  const char *name = cucpu_error_name(static_cast<int>(r));
  std::string s = fmt::format("{} ({})", name ? name : "unknown CUresult", static_cast<int>(r));
  if (r != CUDA_SUCCESS)
    s += ": " + (reason.empty() ? std::string("no reason given") : reason);
  return s;
}

void writeTrace(const char *fn, CUresult r, std::initializer_list<TracedArg> args,
                const std::string &reason) {
  std::string s = fn;
  s += '(';
  const char *sep = "";
  for (const TracedArg &a : args) {
    s += sep;
    s += a.name;
    s += '=';
    const TraceArg &v = a.value;
    switch (v.kind()) {
    case TraceArg::Kind::Signed:
      s += fmt::format("{}", v.i());
      break;
    case TraceArg::Kind::Unsigned:
      s += fmt::format("{}", v.u());
      break;
    case TraceArg::Kind::Hex:
      s += fmt::format("{:#x}", v.u());
      break;
    case TraceArg::Kind::Float:
      s += fmt::format("{}", v.f());
      break;
    case TraceArg::Kind::Pointer:
      s += v.p() ? fmt::format("{:#x}", reinterpret_cast<uintptr_t>(v.p())) : "NULL";
      break;
    case TraceArg::Kind::String:
      s += v.p() ? fmt::format("\"{}\"", static_cast<const char *>(v.p())) : "NULL";
      break;
    case TraceArg::Kind::Aggregate:
      s += "{...}";
      break;
    }
    sep = ", ";
  }
  s += ") -> " + outcome(r, reason);
  log::write(log::Component::Api, log::Level::Trace, s);
}

// A call that fails with its context's sticky error says so wherever it read the error.
std::string stickyReason(CUresult r) {
  const driver::Context *c = driver::current();
  if (c && driver::isLiveContext(c) && c->stickyError() == r)
    return "the context has the sticky error of an earlier kernel fault (logged by exec)";
  return {};
}

} // namespace

void logCall(const char *fn, CUresult r, std::initializer_list<TracedArg> args) noexcept {
  try {
    std::string reason = driver::takeReason();
    if (reason.empty() && r != CUDA_SUCCESS)
      reason = stickyReason(r);
    if (driver::errorlog::logged(r)) {
      const char *name = cucpu_error_name(static_cast<int>(r));
      driver::errorlog::failedCall(fn, r, name ? name : "CUDA_ERROR_UNKNOWN", reason);
      const char *text = cucpu_error_string(static_cast<int>(r));
      driver::sanitizer::apiError(fn, static_cast<int>(r), name ? name : "CUDA_ERROR_UNKNOWN",
                                  text ? text : "unknown error");
    }
    if (tracing())
      writeTrace(fn, r, args, reason);
    else if (r != CUDA_SUCCESS)
      log::debug(log::Component::Api, "{} -> {}", fn, outcome(r, reason));
  } catch (...) {
    // Logging never changes a call's outcome.
  }
}

} // namespace cucpu::api
