// Entry points cuLogs*: the driver's error log (src/driver/error_log.cpp).
#include "cucpu/driver/error_log.h"
#include "entry.h"
#include "entry_points.h"

namespace cucpu::api::impl {

CUresult cuLogsRegisterCallback(CUlogsCallback callbackFunc, void *userData,
                                CUlogsCallbackHandle *callback_out) {
  return driver::errorlog::registerCallback(callbackFunc, userData, callback_out);
}

CUresult cuLogsUnregisterCallback(CUlogsCallbackHandle callback) {
  return driver::errorlog::unregisterCallback(callback);
}

CUresult cuLogsCurrent(CUlogIterator *iterator_out, unsigned int flags) {
  return driver::errorlog::current(iterator_out, flags);
}

CUresult cuLogsDumpToFile(CUlogIterator *iterator, const char *pathToFile, unsigned int flags) {
  return driver::errorlog::dumpToFile(iterator, pathToFile, flags);
}

CUresult cuLogsDumpToMemory(CUlogIterator *iterator, char *buffer, size_t *size,
                            unsigned int flags) {
  return driver::errorlog::dumpToMemory(iterator, buffer, size, flags);
}

} // namespace cucpu::api::impl
