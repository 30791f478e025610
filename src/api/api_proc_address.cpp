// Entry points: cuGetProcAddress, answering (name, CUDA version, stream mode) from the registry.
#include "cucpu/driver/reason.h"
#include "entry_points.h"

#include <algorithm>
#include <iterator>
#include <string_view>

namespace {

struct ProcEntry {
  const char *api; // the name callers ask for
  bool perThread;  // a _ptds/_ptsz variant
  int version;     // the CUDA version that introduced this ABI
  void *fn;
};

const ProcEntry kTable[] = {
#include "proc_table.inc"
};

struct Found {
  CUresult result;
  CUdriverProcAddressQueryResult status;
  void *fn;
};

// The newest ABI of `name` introduced at or before `version`. A per-thread-stream variant wins
// when asked for; the default-stream ABI answers otherwise, or when no variant is old enough.
Found lookup(std::string_view name, int version, bool perThread) {
  const ProcEntry *e = std::lower_bound(
      std::begin(kTable), std::end(kTable), name,
      [](const ProcEntry &a, std::string_view n) { return std::string_view(a.api) < n; });
  if (e == std::end(kTable) || e->api != name)
    return {CUDA_ERROR_NOT_FOUND, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, nullptr};
  const ProcEntry *legacy = nullptr, *variant = nullptr; // the table is sorted by version
  for (; e != std::end(kTable) && e->api == name; ++e) {
    if (e->version <= version)
      (e->perThread ? variant : legacy) = e;
  }
  const ProcEntry *best = perThread && variant ? variant : legacy;
  if (!best)
    return {CUDA_ERROR_NOT_FOUND, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, nullptr};
  return {CUDA_SUCCESS, CU_GET_PROC_ADDRESS_SUCCESS, best->fn};
}

CUresult getProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                        CUdriverProcAddressQueryResult *symbolStatus) {
  constexpr cuuint64_t kKnown =
      CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
  if (!symbol || !pfn)
    return cucpu::driver::fail(CUDA_ERROR_INVALID_VALUE, "symbol or pfn is NULL");
  if ((flags & ~kKnown) || (flags & kKnown) == kKnown)
    return cucpu::driver::fail(CUDA_ERROR_INVALID_VALUE,
                               "flags = {:#x}: unknown bits, or both stream flags", flags);
  Found f = lookup(symbol, cudaVersion, flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
  *pfn = f.fn;
  if (!symbolStatus)
    return f.result;
  // With somewhere to say why, an H200 answers success and the symbol's status
  // (tests/gpu/answers/misuse.txt).
  *symbolStatus = f.status;
  return CUDA_SUCCESS;
}

} // namespace

namespace cucpu::api::impl {

CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags) {
  return getProcAddress(symbol, pfn, cudaVersion, flags, nullptr);
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *symbolStatus) {
  return getProcAddress(symbol, pfn, cudaVersion, flags, symbolStatus);
}

} // namespace cucpu::api::impl
