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

// Whether memcheck (CUCPU_SANITIZER=memcheck) or racecheck (=racecheck) is on for the process.
bool memcheck();
bool racecheck();

// "kernel(params) in file.cu:9 (PTX line 115)": where an access is, for reports.
std::string sitePlace(const cucpu_access_site *site);
// Writes one report and counts it as an error, or as a warning.
void reportError(const std::string &text);
void reportWarning(const std::string &text);

// racecheck (racecheck.cpp): the shared-memory accesses of one grid, each checked against the
// others of its barrier interval; the hazards found are reported when the grid ends.
class RaceLog {
public:
  RaceLog();
  ~RaceLog();
  RaceLog(const RaceLog &) = delete;
  RaceLog &operator=(const RaceLog &) = delete;
  // An access of `site` at `offset` in the shared window `shared` of a block of `block` threads
  // by thread `where` (`value`: a store's bits, for same-value stores, which are no hazard).
  void access(const cucpu_access_site *site, uint64_t offset, const uint32_t *where,
              const uint32_t block[3], uint64_t value, void *shared);
  // The block on `shared` passed a barrier or starts (`warp` ~0: a new interval), or warp `warp`
  // passed a warp-level synchronisation (its threads' earlier accesses are ordered before their
  // later ones).
  void barrier(void *shared, uint32_t warp);
  // Reports each pair of racing accesses once, with the number of hazards between them.
  void report();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

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
