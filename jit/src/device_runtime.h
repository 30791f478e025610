// The driver's side of NVIDIA's device runtime (libcudadevrt): the syscalls its cooperative-groups
// functions make, supplied as PTX functions that lower with the module.
#pragma once

#include "cucpu/ptx/ast.h"

namespace cucpu::jit {

// The function the supplied syscalls call for a block's arrival at the grid barrier; lowered
// to cucpu_services.grid_sync (lower_runtime.cpp).
inline constexpr const char *kGridSyncFunction = "__cucpu_grid_sync";
// The function the supplied __cudaCDP2* functions call: cucpu_services.device_runtime.
inline constexpr const char *kDeviceRuntimeFunction = "__cucpu_cdp";

// Adds to `m` a definition of each device-runtime syscall it declares without defining
// (__cuda_syscall_CGS_get_intrinsic_handle, _sync, _get_size, _get_rank, cudaGraphSetConditional,
// the __cudaCDP2* functions of dynamic parallelism).
void addDeviceRuntime(ptx::Module &m);

} // namespace cucpu::jit
