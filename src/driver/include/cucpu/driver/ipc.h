// CUDA IPC of device memory between processes on one machine. Exporting an allocation moves its
// pages into a memory file (memfd) mapped at the same address, so the allocation is unchanged for
// the process; the handle names the file by process and descriptor, and the importer opens it
// through /proc and maps it into reserved device address space.
#pragma once

#include <cuda.h>

#include <cstdint>

namespace cucpu::driver {

class Context;
struct Allocation;

// The building blocks, shared with exportable memory pools: whole pages moved into a new memory
// file mapped in their place (its descriptor, -1 on failure); pages given back private pages
// (the file closed); another process's memory file (`fd` in process `pid`) mapped into reserved
// device address space, and unmapped again.
int shareInPlace(uintptr_t start, size_t bytes);
void unshareInPlace(uintptr_t start, size_t bytes, int fd);
CUresult mapFromProcess(int32_t pid, int32_t fd, size_t bytes, uintptr_t *start);
void unmapFromProcess(uintptr_t start, size_t bytes);

// cuIpcGetMemHandle: `ptr` inside a cuMemAlloc allocation (INVALID_VALUE for other memory).
CUresult ipcExport(uintptr_t ptr, CUipcMemHandle *out);
// An exported allocation is being freed: its pages stop being shared where they are its own.
void ipcReleased(const Allocation &a);
// cuIpcOpenMemHandle (INVALID_CONTEXT for the exporting process, as NVIDIA's driver answers);
// opening a handle again gives the same address and counts.
CUresult ipcOpen(Context *ctx, const CUipcMemHandle &handle, CUdeviceptr *out);
// cuIpcCloseMemHandle: INVALID_VALUE unless `ptr` is an opened allocation's address.
CUresult ipcClose(CUdeviceptr ptr);

// Interprocess events: created with their completion in a memory file's page; exported as the
// process and descriptor of that file; opened (in another process) as an event that waits on it.
class Event;
CUresult createInterprocessEvent(unsigned flags, Event **out);
CUresult ipcExportEvent(const Event *e, CUipcEventHandle *out);
CUresult ipcOpenEvent(const CUipcEventHandle &handle, Event **out);

} // namespace cucpu::driver
