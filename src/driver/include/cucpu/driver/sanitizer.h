// cucpu-sanitizer's runtime (CUCPU_SANITIZER=memcheck): reports of invalid device accesses,
// failing API calls and leaked device memory in compute-sanitizer's format, and the counts the
// cucpu-sanitizer launcher prints at the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

struct cucpu_access_site;

namespace cucpu::driver {

class Context;

namespace sanitizer {

// Whether memcheck is on for this process (CUCPU_SANITIZER=memcheck).
bool memcheck();

// The calling thread's host stack up to the driver's entry point, as report lines (null when
// memcheck is off).
std::shared_ptr<const std::string> hostTrace();

// Device memory from cuMemAlloc/cuMemAllocManaged made and freed: leaks name where each was made.
void allocated(uintptr_t base);
void freed(uintptr_t base);

// A range kernels may access besides tracked allocations while it lives: device-heap blocks (the
// bytes malloc was asked for), a cooperative grid's workspace, device-side launch buffers.
void addRange(uintptr_t base, size_t bytes);
void removeRange(uintptr_t base);

// The check_access service: returns with `range` set when the access is valid, else reports it
// (with `launchTrace`, the launching call's host stack) and ends the grid.
void checkAccess(const cucpu_access_site *site, uint64_t address, const uint32_t *where,
                 uint64_t *range, const std::string *launchTrace);

// A driver API call failed (memcheck reports the error as compute-sanitizer does).
void apiError(const char *function, int code, const char *name, const char *text);

// The context is going: its device allocations still live are leaks (--leak-check full).
void contextDestroyed(const Context *ctx);

} // namespace sanitizer
} // namespace cucpu::driver
