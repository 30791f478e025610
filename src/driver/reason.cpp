// The per-thread reason of the failing driver call (see reason.h).
#include "cucpu/driver/reason.h"

#include <cstdlib>
#include <cstring>

namespace cucpu::driver {
namespace {
// A plain pointer, not a std::string: entry points run from atexit handlers (cudart unloads its
// modules there), after the main thread's thread_local objects were destroyed. Every call takes
// or drops the reason, so nothing is left when a thread ends.
thread_local char *pending = nullptr;
} // namespace

void setReason(fmt::string_view format, fmt::format_args args) {
  // The first reason given is the one that decided the result; later ones are consequences.
  if (pending)
    return;
  const std::string text = fmt::vformat(format, args);
  pending = static_cast<char *>(std::malloc(text.size() + 1));
  if (pending)
    std::memcpy(pending, text.c_str(), text.size() + 1);
}

std::string takeReason() {
  if (!pending)
    return {};
  std::string text(pending);
  discardReason();
  return text;
}

void discardReason() {
  std::free(pending);
  pending = nullptr;
}

} // namespace cucpu::driver
