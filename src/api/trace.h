// The API trace: every exported call logs its arguments and result at trace level of `api`,
// and every failing call its result and reason at debug level.
#pragma once

#include "cucpu/driver/reason.h"

#include <cuda.h>

#include <cstdint>
#include <initializer_list>
#include <type_traits>

namespace cucpu::api {

// One argument of a traced call, captured by kind: pointers print as hex, C strings quoted,
// integers and enumerators as integers, structures passed by value as "{...}".
class TraceArg {
public:
  enum class Kind { Signed, Unsigned, Hex, Float, Pointer, String, Aggregate };

  template <typename T> TraceArg(T v) { // NOLINT(google-explicit-constructor): generated calls
    if constexpr (std::is_same_v<T, const char *>) {
      kind_ = Kind::String;
      p_ = v;
    } else if constexpr (std::is_pointer_v<T> && std::is_function_v<std::remove_pointer_t<T>>) {
      kind_ = Kind::Pointer;
      p_ = reinterpret_cast<const void *>(v);
    } else if constexpr (std::is_pointer_v<T>) {
      kind_ = Kind::Pointer;
      p_ = const_cast<const void *>(static_cast<const volatile void *>(v));
    } else if constexpr (std::is_enum_v<T> || std::is_signed_v<T>) {
      kind_ = Kind::Signed;
      i_ = static_cast<long long>(v);
    } else if constexpr (std::is_floating_point_v<T>) {
      kind_ = Kind::Float;
      f_ = v;
    } else if constexpr (std::is_integral_v<T>) {
      kind_ = Kind::Unsigned;
      u_ = v;
    } else {
      kind_ = Kind::Aggregate;
    }
  }
  static TraceArg hex(unsigned long long v) {
    TraceArg a(v);
    a.kind_ = Kind::Hex;
    return a;
  }

  Kind kind() const { return kind_; }
  long long i() const { return i_; }
  unsigned long long u() const { return u_; }
  double f() const { return f_; }
  const void *p() const { return p_; }

private:
  Kind kind_;
  union {
    long long i_;
    unsigned long long u_;
    double f_;
    const void *p_;
  };
};

struct TracedArg {
  const char *name;
  TraceArg value;
};

bool tracing();

// Logs a call: a failing one in the error log (cuLogs*) and at debug level as
// `fn -> NAME (code): reason`; every call as `fn(name=value, ...) -> result: reason` when the api
// logger is at trace level. Takes the call's reason.
void logCall(const char *fn, CUresult r, std::initializer_list<TracedArg> args) noexcept;
inline void traceCall(const char *fn, CUresult r, std::initializer_list<TracedArg> args) noexcept {
  if (r != CUDA_SUCCESS || tracing())
    logCall(fn, r, args);
  else
    driver::discardReason();
}

} // namespace cucpu::api
