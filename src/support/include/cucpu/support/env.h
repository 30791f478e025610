// Reading configuration from the environment (CUCPU_* and CUDA's own variables).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace cucpu::env {

std::optional<std::string> get(const char *name);
// An integer variable; `fallback` when unset or not a number.
int64_t getInt(const char *name, int64_t fallback);
// A size such as "512M", "4G", "65536"; `fallback` when unset or malformed.
uint64_t getSize(const char *name, uint64_t fallback);
bool getBool(const char *name, bool fallback);

} // namespace cucpu::env
