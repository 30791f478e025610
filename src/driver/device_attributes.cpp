// cuDeviceGetAttribute: every CUdevice_attribute, with values consistent with the host CPU.
#include "cucpu/driver/device.h"
#include "cucpu/driver/reason.h"

#include <unistd.h>

namespace cucpu::driver {
namespace {

int l2CacheBytes() {
  long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return l2 > 0 && l2 < (1l << 30) ? static_cast<int>(l2) : 1 << 20;
}

} // namespace

CUresult Device::attribute(CUdevice_attribute attr, int *value) const {
  int v = 0;
  // clang-format off: one attribute per line reads as the table it is
  switch (attr) {
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    v = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    v = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
    v = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
    v = 64;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
    v = 2147483647;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    v = 65535;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
    v = 65535;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
    v = 48 * 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY:
    v = 64 * 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
    v = 32;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_PITCH:
    v = 2147483647;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
    v = 65536;
    break;
  case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
    v = 2000000;
    break; // kHz
  case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT:
    v = 512;
    break;
  case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    v = static_cast<int>(multiprocessors_);
    break;
  case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT:
    v = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_INTEGRATED:
    v = 1;
    break; // device memory is host memory
  case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE:
    v = CU_COMPUTEMODE_DEFAULT;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH:
    v = 131072;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH:
    v = 131072;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT:
    v = 65536;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH:
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT:
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH:
    v = 16384;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH:
    v = 32768;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT:
    v = 32768;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS:
    v = 2048;
    break;
  case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT:
    v = 512;
    break;
  case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_ECC_ENABLED:
    v = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
    v = physical_ + 1;
    break;
  case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
    v = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_TCC_DRIVER:
    v = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
    v = 3200000;
    break; // kHz
  case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
    v = 128;
    break;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
    v = l2CacheBytes();
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
    v = kThreadsPerMultiprocessor;
    break;
  case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH:
    v = 32768;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS:
    v = 2048;
    break;
  case CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER:
    v = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH:
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT:
    v = 32768;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE:
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE:
    v = 8192;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE:
    v = 32768;
    break;
  case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID:
    v = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT:
    v = 32;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH:
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH:
    v = 32768;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS:
    v = 2046;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH:
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH:
    v = 32768;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT:
    v = 65536;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH:
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT:
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH:
    v = 16384;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH:
    v = 32768;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS:
    v = 2048;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH:
    v = 32768;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT:
    v = 32768;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS:
    v = 2048;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH:
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH:
    v = 32768;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS:
    v = 2046;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH:
    v = 268435456;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH:
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT:
    v = 131072;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH:
    v = 2097120;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH:
    v = 32768;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT:
    v = 32768;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    v = ccMajor_;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    v = ccMinor_;
    break;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH:
    v = 32768;
    break;
  case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
    v = kSharedPerMultiprocessor;
    break;
  case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK:
    v = kReservedSharedPerBlock;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
    v = 65536;
    break;
  case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD:
    v = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID:
    v = physical_;
    break;
  case CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO:
    v = 2;
    break;
  case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED:
    v = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    v = 163 * 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR:
    v = kBlocksPerMultiprocessor;
    break;
  case CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES:
    v = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    break;
  case CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
  case CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED: // transparent: granted, as an H200 does
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1:
  case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1:
  case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1:
  case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS:
  case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_NUMA_ID:
    v = -1;
    break;
  case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID: // the host's one NUMA node, where host pools live
    v = 0;
    break;
  default:
    // Every other attribute names a feature this driver does not offer (yet): it reads 0.
    if (static_cast<int>(attr) <= 0 || static_cast<int>(attr) >= CU_DEVICE_ATTRIBUTE_MAX)
      return fail(CUDA_ERROR_INVALID_VALUE, "device attribute {} is unknown",
                  static_cast<int>(attr));
    v = 0;
  }
  // clang-format on
  *value = v;
  return CUDA_SUCCESS;
}

} // namespace cucpu::driver
