// The driver's error log (cuLogs*): every failed call leaves its reason and "Returning N (NAME)
// from symbol", as NVIDIA's driver logs (tests/gpu/record_logs.cpp), kept in a 25,600-byte
// buffer and passed to registered callbacks.
#pragma once

#include <cuda.h>

#include <string>

namespace cucpu::driver::errorlog {

// Whether a call's result goes in the log: as NVIDIA's driver, not before cuInit
// (NOT_INITIALIZED) nor for a stream or event still busy (NOT_READY, which polling loops get).
inline bool logged(CUresult result) {
  return result != CUDA_SUCCESS && result != CUDA_ERROR_NOT_INITIALIZED &&
         result != CUDA_ERROR_NOT_READY;
}

// A failed call of entry point `symbol` (its exported name, e.g. cuMemAlloc_v2): logs `reason`
// (when given), then "Returning N (resultName) from symbol".
void failedCall(const char *symbol, CUresult result, const char *resultName,
                const std::string &reason);

CUresult registerCallback(CUlogsCallback callback, void *userData, CUlogsCallbackHandle *handle);
CUresult unregisterCallback(CUlogsCallbackHandle handle);
// The iterator of the next message.
CUresult current(CUlogIterator *iterator, unsigned flags);
// The messages from *iterator on (all kept when null), "[hh:mm:ss.mmm][thread][CUDA][E] text"
// lines; the iterator moves past them.
CUresult dumpToMemory(CUlogIterator *iterator, char *buffer, size_t *size, unsigned flags);
CUresult dumpToFile(CUlogIterator *iterator, const char *path, unsigned flags);

} // namespace cucpu::driver::errorlog
