// Entry points: CUDA IPC of device memory and events between processes (the driver's ipc.cpp);
// the answers are an H200's (tests/gpu/answers/ipc.txt). The registry checks the context and
// the outputs first.
#include "cucpu/driver/context.h"
#include "cucpu/driver/ipc.h"
#include "cucpu/driver/stream.h"
#include "entry.h"
#include "entry_points.h"

namespace cucpu::api::impl {

CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr) {
  if (!dptr)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "dptr is NULL");
  // The pages move into a shared file: nothing queued may be writing them meanwhile.
  driver::synchronizeStreams(driver::current());
  return driver::ipcExport(dptr, pHandle);
}

// Lazy peer access (the only flag) changes nothing: every context reaches all memory here. Any
// flags are accepted, as an H200 does.
CUresult cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int) {
  return driver::ipcOpen(driver::current(), handle, pdptr);
}
CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int) {
  return driver::ipcOpen(driver::current(), handle, pdptr);
}

CUresult cuIpcCloseMemHandle(CUdeviceptr dptr) { return driver::ipcClose(dptr); }

CUresult cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event) {
  return driver::ipcExportEvent(reinterpret_cast<driver::Event *>(event), pHandle);
}

CUresult cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle) {
  driver::Context *c = driver::current();
  driver::Event *e;
  if (CUresult r = driver::ipcOpenEvent(handle, &e); r != CUDA_SUCCESS)
    return r;
  driver::registerEvent(e, c);
  *phEvent = reinterpret_cast<CUevent>(e);
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
