// The per-thread reason of the failing driver call (see reason.h).
#include "cucpu/driver/reason.h"

#include <utility>

namespace cucpu::driver {
namespace {
thread_local std::string pending;
} // namespace

void setReason(fmt::string_view format, fmt::format_args args) {
  // The first reason given is the one that decided the result; later ones are consequences.
  if (pending.empty())
    pending = fmt::vformat(format, args);
}

std::string takeReason() { return std::exchange(pending, std::string()); }

void discardReason() { pending.clear(); }

} // namespace cucpu::driver
