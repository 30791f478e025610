// Table of every CUresult code with its enumerator name and a short description of our own.
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
    CUCPU_ERR(CUDA_ERROR_INVALID_VALUE, "an argument is out of range or otherwise invalid"),
    CUCPU_ERR(CUDA_ERROR_OUT_OF_MEMORY, "not enough memory to complete the request"),
    CUCPU_ERR(CUDA_ERROR_NOT_INITIALIZED, "the driver has not been initialized with cuInit"),
    CUCPU_ERR(CUDA_ERROR_DEINITIALIZED, "the driver is shutting down"),
    CUCPU_ERR(CUDA_ERROR_PROFILER_DISABLED, "profiling is disabled for this process"),
    CUCPU_ERR(CUDA_ERROR_PROFILER_NOT_INITIALIZED, "profiler not initialized (obsolete code)"),
    CUCPU_ERR(CUDA_ERROR_PROFILER_ALREADY_STARTED, "profiler already started (obsolete code)"),
    CUCPU_ERR(CUDA_ERROR_PROFILER_ALREADY_STOPPED, "profiler already stopped (obsolete code)"),
    CUCPU_ERR(CUDA_ERROR_STUB_LIBRARY, "a stub driver library was loaded instead of a real one"),
    CUCPU_ERR(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER,
              "the call needs a newer driver than the one installed"),
    CUCPU_ERR(CUDA_ERROR_DEVICE_UNAVAILABLE, "the device is currently unavailable"),
    CUCPU_ERR(CUDA_ERROR_NO_DEVICE, "no usable device was found"),
    CUCPU_ERR(CUDA_ERROR_INVALID_DEVICE, "the device ordinal or handle is invalid"),
    CUCPU_ERR(CUDA_ERROR_DEVICE_NOT_LICENSED, "the device is not licensed for this use"),
    CUCPU_ERR(CUDA_ERROR_INVALID_IMAGE, "the module image is malformed"),
    CUCPU_ERR(CUDA_ERROR_INVALID_CONTEXT, "no valid context is bound or the context is invalid"),
    CUCPU_ERR(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, "the context is already current (obsolete code)"),
    CUCPU_ERR(CUDA_ERROR_MAP_FAILED, "mapping the resource failed"),
    CUCPU_ERR(CUDA_ERROR_UNMAP_FAILED, "unmapping the resource failed"),
    CUCPU_ERR(CUDA_ERROR_ARRAY_IS_MAPPED, "the array is mapped and cannot be destroyed"),
    CUCPU_ERR(CUDA_ERROR_ALREADY_MAPPED, "the resource is already mapped"),
    CUCPU_ERR(CUDA_ERROR_NO_BINARY_FOR_GPU, "the module has no code usable on this device"),
    CUCPU_ERR(CUDA_ERROR_ALREADY_ACQUIRED, "the resource has already been acquired"),
    CUCPU_ERR(CUDA_ERROR_NOT_MAPPED, "the resource is not mapped"),
    CUCPU_ERR(CUDA_ERROR_NOT_MAPPED_AS_ARRAY, "the mapped resource is not accessible as an array"),
    CUCPU_ERR(CUDA_ERROR_NOT_MAPPED_AS_POINTER,
              "the mapped resource is not accessible through a pointer"),
    CUCPU_ERR(CUDA_ERROR_ECC_UNCORRECTABLE, "an uncorrectable memory (ECC) error occurred"),
    CUCPU_ERR(CUDA_ERROR_UNSUPPORTED_LIMIT, "the limit is not supported by this device"),
    CUCPU_ERR(CUDA_ERROR_CONTEXT_ALREADY_IN_USE, "the context is already in use by another thread"),
    CUCPU_ERR(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
              "peer access between these devices is impossible"),
    CUCPU_ERR(CUDA_ERROR_INVALID_PTX, "PTX compilation failed"),
    CUCPU_ERR(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, "the graphics context is invalid"),
    CUCPU_ERR(CUDA_ERROR_NVLINK_UNCORRECTABLE, "an uncorrectable NVLink error occurred"),
    CUCPU_ERR(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "the PTX JIT compiler is not available"),
    CUCPU_ERR(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "the PTX ISA version is not supported"),
    CUCPU_ERR(CUDA_ERROR_JIT_COMPILATION_DISABLED, "JIT compilation has been disabled"),
    CUCPU_ERR(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, "the execution affinity type is not supported"),
    CUCPU_ERR(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC,
              "the code uses device-side synchronization, which is not supported here"),
    CUCPU_ERR(CUDA_ERROR_CONTAINED, "a contained device error occurred; the process should exit"),
    CUCPU_ERR(CUDA_ERROR_INVALID_SOURCE, "the kernel source is invalid"),
    CUCPU_ERR(CUDA_ERROR_FILE_NOT_FOUND, "the file could not be found"),
    CUCPU_ERR(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, "a shared-object symbol was not resolved"),
    CUCPU_ERR(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, "a shared object failed to initialize"),
    CUCPU_ERR(CUDA_ERROR_OPERATING_SYSTEM, "an operating system call failed"),
    CUCPU_ERR(CUDA_ERROR_INVALID_HANDLE, "the handle is invalid or has been destroyed"),
    CUCPU_ERR(CUDA_ERROR_ILLEGAL_STATE, "the object is not in a state that allows this operation"),
    CUCPU_ERR(CUDA_ERROR_LOSSY_QUERY, "the requested attribute cannot be reported exactly"),
    CUCPU_ERR(CUDA_ERROR_NOT_FOUND, "the named symbol or object was not found"),
    CUCPU_ERR(CUDA_ERROR_NOT_READY, "the asynchronous work has not completed yet"),
    CUCPU_ERR(CUDA_ERROR_ILLEGAL_ADDRESS, "a kernel accessed an invalid memory address"),
    CUCPU_ERR(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "the launch needs more resources than available"),
    CUCPU_ERR(CUDA_ERROR_LAUNCH_TIMEOUT, "the kernel ran past the execution time limit"),
    CUCPU_ERR(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING,
              "the launch uses an incompatible texturing mode"),
    CUCPU_ERR(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "peer access is already enabled"),
    CUCPU_ERR(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access has not been enabled"),
    CUCPU_ERR(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, "the primary context is already active"),
    CUCPU_ERR(CUDA_ERROR_CONTEXT_IS_DESTROYED, "the context has been destroyed"),
    CUCPU_ERR(CUDA_ERROR_ASSERT, "a device-side assertion failed"),
    CUCPU_ERR(CUDA_ERROR_TOO_MANY_PEERS, "too many peer mappings for this device"),
    CUCPU_ERR(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "the host range is already registered"),
    CUCPU_ERR(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "the host range is not registered"),
    CUCPU_ERR(CUDA_ERROR_HARDWARE_STACK_ERROR, "a kernel overflowed or corrupted its call stack"),
    CUCPU_ERR(CUDA_ERROR_ILLEGAL_INSTRUCTION, "a kernel executed an illegal instruction"),
    CUCPU_ERR(CUDA_ERROR_MISALIGNED_ADDRESS, "a kernel accessed a misaligned address"),
    CUCPU_ERR(CUDA_ERROR_INVALID_ADDRESS_SPACE,
              "a kernel used an address in the wrong state space"),
    CUCPU_ERR(CUDA_ERROR_INVALID_PC, "a kernel's program counter became invalid"),
    CUCPU_ERR(CUDA_ERROR_LAUNCH_FAILED, "the kernel failed during execution"),
    CUCPU_ERR(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
              "the cooperative grid does not fit on the device at once"),
    CUCPU_ERR(CUDA_ERROR_TENSOR_MEMORY_LEAK, "a kernel exited without freeing its tensor memory"),
    CUCPU_ERR(CUDA_ERROR_NOT_PERMITTED, "the operation is not permitted"),
    CUCPU_ERR(CUDA_ERROR_NOT_SUPPORTED, "the operation is not supported"),
    CUCPU_ERR(CUDA_ERROR_SYSTEM_NOT_READY, "the system is not ready for device work"),
    CUCPU_ERR(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "driver and kernel-module versions do not match"),
    CUCPU_ERR(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE,
              "forward-compatibility mode is not supported on this device"),
    CUCPU_ERR(CUDA_ERROR_MPS_CONNECTION_FAILED, "could not connect to the MPS server"),
    CUCPU_ERR(CUDA_ERROR_MPS_RPC_FAILURE, "a call to the MPS server failed"),
    CUCPU_ERR(CUDA_ERROR_MPS_SERVER_NOT_READY, "the MPS server is not ready"),
    CUCPU_ERR(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED, "the MPS server has no room for more clients"),
    CUCPU_ERR(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED,
              "the MPS server has no room for more connections"),
    CUCPU_ERR(CUDA_ERROR_MPS_CLIENT_TERMINATED, "the MPS client was terminated by the server"),
    CUCPU_ERR(CUDA_ERROR_CDP_NOT_SUPPORTED, "dynamic parallelism is not supported here"),
    CUCPU_ERR(CUDA_ERROR_CDP_VERSION_MISMATCH, "mixed dynamic-parallelism versions in one image"),
    CUCPU_ERR(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
              "the operation is not allowed while the stream is capturing"),
    CUCPU_ERR(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "the stream capture was invalidated earlier"),
    CUCPU_ERR(CUDA_ERROR_STREAM_CAPTURE_MERGE, "the operation would merge two separate captures"),
    CUCPU_ERR(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "the capture was not started in this stream"),
    CUCPU_ERR(CUDA_ERROR_STREAM_CAPTURE_UNJOINED,
              "a forked capture stream was not joined back into the origin stream"),
    CUCPU_ERR(CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
              "the dependency would cross the boundary of the capture"),
    CUCPU_ERR(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
              "the operation would synchronize implicitly with the legacy stream during capture"),
    CUCPU_ERR(CUDA_ERROR_CAPTURED_EVENT,
              "the operation is not allowed on an event recorded in a capture"),
    CUCPU_ERR(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
              "the capture sequence belongs to a different thread"),
    CUCPU_ERR(CUDA_ERROR_TIMEOUT, "the wait ran out of time"),
    CUCPU_ERR(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "the executable graph could not be updated"),
    CUCPU_ERR(CUDA_ERROR_EXTERNAL_DEVICE, "an error was reported by an external device"),
    CUCPU_ERR(CUDA_ERROR_INVALID_CLUSTER_SIZE, "the cluster size is invalid"),
    CUCPU_ERR(CUDA_ERROR_FUNCTION_NOT_LOADED, "the function has not been loaded yet"),
    CUCPU_ERR(CUDA_ERROR_INVALID_RESOURCE_TYPE, "the device resource type is invalid"),
    CUCPU_ERR(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION,
              "the device resources cannot be configured as requested"),
    CUCPU_ERR(CUDA_ERROR_KEY_ROTATION, "encryption key rotation failed"),
    CUCPU_ERR(CUDA_ERROR_UNKNOWN, "an unknown internal error occurred"),
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
