// Table of every CUresult code with its enumerator name and the text cuGetErrorString gives for it,
// as NVIDIA's driver 580 gives it (tests/gpu/answers/error_strings.txt; programs and test suites
// match these texts).
#include "error_text.h"

#include <cuda.h>

#include <algorithm>
#include <cstddef>
#include <iterator>

namespace {

struct ErrorText {
  int code;
  const char *name;
  const char *text;
};

#define CUCPU_ERR(code, text)                                                                      \
  { code, #code, text }

// Sorted by code (checked below), so lookups can use binary search.
constexpr ErrorText kErrors[] = {
    CUCPU_ERR(CUDA_SUCCESS, "no error"),
    CUCPU_ERR(CUDA_ERROR_INVALID_VALUE, "invalid argument"),
    CUCPU_ERR(CUDA_ERROR_OUT_OF_MEMORY, "out of memory"),
    CUCPU_ERR(CUDA_ERROR_NOT_INITIALIZED, "initialization error"),
    CUCPU_ERR(CUDA_ERROR_DEINITIALIZED, "driver shutting down"),
    CUCPU_ERR(CUDA_ERROR_PROFILER_DISABLED,
              "profiler disabled while using external profiling tool"),
    CUCPU_ERR(CUDA_ERROR_PROFILER_NOT_INITIALIZED,
              "profiler not initialized: call cudaProfilerInitialize()"),
    CUCPU_ERR(CUDA_ERROR_PROFILER_ALREADY_STARTED, "profiler already started"),
    CUCPU_ERR(CUDA_ERROR_PROFILER_ALREADY_STOPPED, "profiler already stopped"),
    CUCPU_ERR(CUDA_ERROR_STUB_LIBRARY, "CUDA driver is a stub library"),
    CUCPU_ERR(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER,
              "API call is not supported in the installed CUDA driver"),
    CUCPU_ERR(CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA-capable device(s) is/are busy or unavailable"),
    CUCPU_ERR(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"),
    CUCPU_ERR(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"),
    CUCPU_ERR(CUDA_ERROR_DEVICE_NOT_LICENSED, "device doesn't have valid Grid license"),
    CUCPU_ERR(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"),
    CUCPU_ERR(CUDA_ERROR_INVALID_CONTEXT, "invalid device context"),
    CUCPU_ERR(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, "context already current"),
    CUCPU_ERR(CUDA_ERROR_MAP_FAILED, "mapping of buffer object failed"),
    CUCPU_ERR(CUDA_ERROR_UNMAP_FAILED, "unmapping of buffer object failed"),
    CUCPU_ERR(CUDA_ERROR_ARRAY_IS_MAPPED, "array is mapped"),
    CUCPU_ERR(CUDA_ERROR_ALREADY_MAPPED, "resource already mapped"),
    CUCPU_ERR(CUDA_ERROR_NO_BINARY_FOR_GPU,
              "no kernel image is available for execution on the device"),
    CUCPU_ERR(CUDA_ERROR_ALREADY_ACQUIRED, "resource already acquired"),
    CUCPU_ERR(CUDA_ERROR_NOT_MAPPED, "resource not mapped"),
    CUCPU_ERR(CUDA_ERROR_NOT_MAPPED_AS_ARRAY, "resource not mapped as array"),
    CUCPU_ERR(CUDA_ERROR_NOT_MAPPED_AS_POINTER, "resource not mapped as pointer"),
    CUCPU_ERR(CUDA_ERROR_ECC_UNCORRECTABLE, "uncorrectable ECC error encountered"),
    CUCPU_ERR(CUDA_ERROR_UNSUPPORTED_LIMIT, "limit is not supported on this architecture"),
    CUCPU_ERR(CUDA_ERROR_CONTEXT_ALREADY_IN_USE,
              "exclusive-thread device already in use by a different thread"),
    CUCPU_ERR(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
              "peer access is not supported between these two devices"),
    CUCPU_ERR(CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed"),
    CUCPU_ERR(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, "invalid OpenGL or DirectX context"),
    CUCPU_ERR(CUDA_ERROR_NVLINK_UNCORRECTABLE,
              "uncorrectable NVLink error detected during the execution"),
    CUCPU_ERR(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "PTX JIT compiler library not found"),
    CUCPU_ERR(CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
              "the provided PTX was compiled with an unsupported toolchain."),
    CUCPU_ERR(CUDA_ERROR_JIT_COMPILATION_DISABLED, "PTX JIT compilation was disabled"),
    CUCPU_ERR(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY,
              "the provided execution affinity is not supported"),
    CUCPU_ERR(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC,
              "the provided PTX contains unsupported call to cudaDeviceSynchronize"),
    CUCPU_ERR(CUDA_ERROR_CONTAINED,
              "Invalid access of peer GPU memory over nvlink or a hardware error"),
    CUCPU_ERR(CUDA_ERROR_INVALID_SOURCE, "device kernel image is invalid"),
    CUCPU_ERR(CUDA_ERROR_FILE_NOT_FOUND, "file not found"),
    CUCPU_ERR(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, "shared object symbol not found"),
    CUCPU_ERR(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, "shared object initialization failed"),
    CUCPU_ERR(CUDA_ERROR_OPERATING_SYSTEM, "OS call failed or operation not supported on this OS"),
    CUCPU_ERR(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"),
    CUCPU_ERR(CUDA_ERROR_ILLEGAL_STATE, "the operation cannot be performed in the present state"),
    CUCPU_ERR(CUDA_ERROR_LOSSY_QUERY, "attempted introspection would be semantically lossy"),
    CUCPU_ERR(CUDA_ERROR_NOT_FOUND, "named symbol not found"),
    CUCPU_ERR(CUDA_ERROR_NOT_READY, "device not ready"),
    CUCPU_ERR(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered"),
    CUCPU_ERR(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for launch"),
    CUCPU_ERR(CUDA_ERROR_LAUNCH_TIMEOUT, "the launch timed out and was terminated"),
    CUCPU_ERR(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, "launch uses incompatible texturing mode"),
    CUCPU_ERR(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "peer access is already enabled"),
    CUCPU_ERR(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access has not been enabled"),
    CUCPU_ERR(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE,
              "cannot set while device is active in this process"),
    CUCPU_ERR(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context is destroyed"),
    CUCPU_ERR(CUDA_ERROR_ASSERT, "device-side assert triggered"),
    CUCPU_ERR(CUDA_ERROR_TOO_MANY_PEERS, "peer mapping resources exhausted"),
    CUCPU_ERR(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
              "part or all of the requested memory range is already mapped"),
    CUCPU_ERR(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
              "pointer does not correspond to a registered memory region"),
    CUCPU_ERR(CUDA_ERROR_HARDWARE_STACK_ERROR, "hardware stack error"),
    CUCPU_ERR(CUDA_ERROR_ILLEGAL_INSTRUCTION, "an illegal instruction was encountered"),
    CUCPU_ERR(CUDA_ERROR_MISALIGNED_ADDRESS, "misaligned address"),
    CUCPU_ERR(CUDA_ERROR_INVALID_ADDRESS_SPACE,
              "operation not supported on global/shared address space"),
    CUCPU_ERR(CUDA_ERROR_INVALID_PC, "invalid program counter"),
    CUCPU_ERR(CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure"),
    CUCPU_ERR(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "too many blocks in cooperative launch"),
    CUCPU_ERR(CUDA_ERROR_TENSOR_MEMORY_LEAK, "tensor memory not completely freed"),
    CUCPU_ERR(CUDA_ERROR_NOT_PERMITTED, "operation not permitted"),
    CUCPU_ERR(CUDA_ERROR_NOT_SUPPORTED, "operation not supported"),
    CUCPU_ERR(CUDA_ERROR_SYSTEM_NOT_READY, "system not yet initialized"),
    CUCPU_ERR(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,
              "system has unsupported display driver / cuda driver combination"),
    CUCPU_ERR(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE,
              "forward compatibility was attempted on non supported HW"),
    CUCPU_ERR(CUDA_ERROR_MPS_CONNECTION_FAILED,
              "MPS client failed to connect to the MPS control daemon or the MPS server"),
    CUCPU_ERR(CUDA_ERROR_MPS_RPC_FAILURE,
              "the remote procedural call between the MPS server and the MPS client failed"),
    CUCPU_ERR(CUDA_ERROR_MPS_SERVER_NOT_READY,
              "MPS server is not ready to accept new MPS client requests"),
    CUCPU_ERR(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED,
              "the hardware resources required to create MPS client have been exhausted"),
    CUCPU_ERR(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED,
              "the hardware resources required to support device connections have been exhausted"),
    CUCPU_ERR(CUDA_ERROR_MPS_CLIENT_TERMINATED, "the MPS client has been terminated by the server"),
    CUCPU_ERR(CUDA_ERROR_CDP_NOT_SUPPORTED, "is using CUDA Dynamic Parallelism, but the current "
                                            "configuration, like MPS, does not support it"),
    CUCPU_ERR(CUDA_ERROR_CDP_VERSION_MISMATCH,
              "unsupported interaction between different versions of CUDA Dynamic Parallelism"),
    CUCPU_ERR(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
              "operation not permitted when stream is capturing"),
    CUCPU_ERR(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
              "operation failed due to a previous error during capture"),
    CUCPU_ERR(CUDA_ERROR_STREAM_CAPTURE_MERGE,
              "operation would result in a merge of separate capture sequences"),
    CUCPU_ERR(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED,
              "capture was not ended in the same stream as it began"),
    CUCPU_ERR(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "capturing stream has unjoined work"),
    CUCPU_ERR(CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
              "dependency created on uncaptured work in another stream"),
    CUCPU_ERR(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
              "operation would make the legacy stream depend on a capturing blocking stream"),
    CUCPU_ERR(CUDA_ERROR_CAPTURED_EVENT,
              "operation not permitted on an event last recorded in a capturing stream"),
    CUCPU_ERR(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
              "attempt to terminate a thread-local capture sequence from another thread"),
    CUCPU_ERR(CUDA_ERROR_TIMEOUT, "wait operation timed out"),
    CUCPU_ERR(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
              "the graph update was not performed because it included changes which violated "
              "constraints specific to instantiated graph update"),
    CUCPU_ERR(CUDA_ERROR_EXTERNAL_DEVICE,
              "an async error has occured in external entity outside of CUDA"),
    CUCPU_ERR(CUDA_ERROR_INVALID_CLUSTER_SIZE,
              "a kernel launch error has occurred due to cluster misconfiguration"),
    CUCPU_ERR(
        CUDA_ERROR_FUNCTION_NOT_LOADED,
        "the function handle is not loaded when calling an API that requires a loaded function"),
    CUCPU_ERR(CUDA_ERROR_INVALID_RESOURCE_TYPE,
              "one or more resources passed in are not valid resource types for the operation"),
    CUCPU_ERR(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION,
              "one or more resources are insufficient or non-applicable for the operation"),
    CUCPU_ERR(CUDA_ERROR_KEY_ROTATION, "an error happened during the key rotation sequence"),
    CUCPU_ERR(CUDA_ERROR_UNKNOWN, "unknown error"),
};

#undef CUCPU_ERR

constexpr bool sorted_by_code() {
  for (std::size_t i = 1; i < std::size(kErrors); ++i)
    if (kErrors[i - 1].code >= kErrors[i].code)
      return false;
  return true;
}
static_assert(sorted_by_code(), "error table must be strictly ordered by code");

const ErrorText *find(int code) {
  auto it = std::lower_bound(std::begin(kErrors), std::end(kErrors), code,
                             [](const ErrorText &e, int c) { return e.code < c; });
  return (it != std::end(kErrors) && it->code == code) ? &*it : nullptr;
}

} // namespace

const char *cucpu_error_name(int code) {
  const ErrorText *e = find(code);
  return e ? e->name : nullptr;
}

const char *cucpu_error_string(int code) {
  const ErrorText *e = find(code);
  return e ? e->text : nullptr;
}
