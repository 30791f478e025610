// Entry points: CUDA IPC of device memory and events between processes (the driver's ipc.cpp);
// the answers are an H200's (tests/gpu/answers/ipc.txt).
#include "cucpu/driver/context.h"
#include "cucpu/driver/ipc.h"
#include "cucpu/driver/stream.h"
#include "entry.h"
#include "entry_points.h"

namespace cucpu::api::impl {

CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!pHandle || !dptr)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "pHandle or dptr is NULL");
  // The pages move into a shared file: nothing queued may be writing them meanwhile.
  driver::synchronizeStreams(c);
  return driver::ipcExport(dptr, pHandle);
}

namespace {
CUresult open(CUdeviceptr *pdptr, const CUipcMemHandle &handle) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!pdptr)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "pdptr is NULL");
  return driver::ipcOpen(c, handle, pdptr);
}
} // namespace

// Lazy peer access (the only flag) changes nothing: every context reaches all memory here. Any
// flags are accepted, as an H200 does.
CUresult cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int) {
  return open(pdptr, handle);
}
CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int) {
  return open(pdptr, handle);
}

CUresult cuIpcCloseMemHandle(CUdeviceptr dptr) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  return driver::ipcClose(dptr);
}

CUresult cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  auto *e = reinterpret_cast<driver::Event *>(event);
  if (!driver::isLiveEvent(e))
    return driver::fail(CUDA_ERROR_INVALID_HANDLE, "e is not a live event");
  if (!pHandle)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "pHandle is NULL");
  return driver::ipcExportEvent(e, pHandle);
}

CUresult cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!phEvent)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "phEvent is NULL");
  driver::Event *e;
  if (CUresult r = driver::ipcOpenEvent(handle, &e); r != CUDA_SUCCESS)
    return r;
  driver::registerEvent(e, c);
  *phEvent = reinterpret_cast<CUevent>(e);
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
