// Formatting of the API trace.
#include "trace.h"

#include "cucpu/support/log.h"

#include <string>

namespace cucpu::api {

bool tracing() { return log::enabled(log::Component::Api, log::Level::Trace); }

void writeTrace(const char *fn, CUresult r, std::initializer_list<TracedArg> args) noexcept {
  try {
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
    s += fmt::format(") -> {}", static_cast<int>(r));
    log::write(log::Component::Api, log::Level::Trace, s);
  } catch (...) {
    // Tracing never changes a call's outcome.
  }
}

void traceFailure(const char *fn, CUresult r) noexcept {
  try {
    log::debug(log::Component::Api, "{} -> {}", fn, static_cast<int>(r));
  } catch (...) {
  }
}

} // namespace cucpu::api
