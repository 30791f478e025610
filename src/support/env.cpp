// Environment configuration helpers.
#include "cucpu/support/env.h"

#include <cstdlib>
#include <strings.h>

namespace cucpu::env {

std::optional<std::string> get(const char *name) {
  const char *v = std::getenv(name);
  if (!v)
    return std::nullopt;
  return std::string(v);
}

int64_t getInt(const char *name, int64_t fallback) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return fallback;
  char *end = nullptr;
  long long r = std::strtoll(v, &end, 0);
  return (end && *end == '\0') ? r : fallback;
}

uint64_t getSize(const char *name, uint64_t fallback) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return fallback;
  char *end = nullptr;
  unsigned long long r = std::strtoull(v, &end, 0);
  if (end == v)
    return fallback;
  switch (*end) {
  case '\0':
    return r;
  case 'k': case 'K':
    r <<= 10;
    break;
  case 'm': case 'M':
    r <<= 20;
    break;
  case 'g': case 'G':
    r <<= 30;
    break;
  default:
    return fallback;
  }
  return end[1] == '\0' || ((end[1] == 'b' || end[1] == 'B') && end[2] == '\0') ? r : fallback;
}

bool getBool(const char *name, bool fallback) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return fallback;
  if (!strcasecmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
    return true;
  if (!strcasecmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcasecmp(v, "off"))
    return false;
  return fallback;
}

} // namespace cucpu::env
