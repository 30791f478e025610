// Entry points: unified addressing queries (pointer attributes, address ranges).
#include "checks.h"
#include "device_ptr.h"
#include "entry_points.h"

#include <cstring>

namespace cucpu::api::impl {
namespace {

template <typename T> void put(void *data, T value) { std::memcpy(data, &value, sizeof value); }
// The boolean attributes are 4-byte values: an H100 writes 4 bytes, and cudart reads IS_MANAGED
// from an int it does not clear (a 1-byte answer made device memory "managed" there).
void putFlag(void *data, bool value) { put(data, static_cast<unsigned>(value)); }

// Writes one attribute of the allocation `a` (null: not a CUDA pointer, which only
// cuPointerGetAttributes answers: zeros, its own address as the host pointer, ordinal -2, as an
// H100 with driver 580 answers). `many`: for cuPointerGetAttributes, which gives device memory's
// host pointer as null where cuPointerGetAttribute fails.
CUresult attribute(CUpointer_attribute attr, void *data, const driver::Allocation *a,
                   CUdeviceptr ptr, bool many) {
  const bool device =
      a && !a->hostPool &&
      (a->kind == driver::MemoryKind::Device || a->kind == driver::MemoryKind::Global ||
       a->kind == driver::MemoryKind::Mapped);
  switch (attr) {
  case CU_POINTER_ATTRIBUTE_CONTEXT:
    put(data, a ? toHandle(a->ctx) : CUcontext{});
    break;
  case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
    put(data, static_cast<unsigned>(!a ? 0 : device ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST));
    break;
  case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
    put(data, a ? ptr : CUdeviceptr{});
    break;
  case CU_POINTER_ATTRIBUTE_HOST_POINTER:
    if (device && !a->managed) { // device memory has no host mapping in CUDA's model
      put(data, static_cast<void *>(nullptr));
      return many ? CUDA_SUCCESS
                  : driver::fail(CUDA_ERROR_INVALID_VALUE, "device memory has no host pointer");
    }
    put(data, hostPtr(ptr)); // pinned and managed memory, and host memory CUDA does not know
    break;
  case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
    putFlag(data, a && a->syncMemops);
    break;
  case CU_POINTER_ATTRIBUTE_BUFFER_ID:
  case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
    put(data, a ? a->id : 0ull);
    break;
  case CU_POINTER_ATTRIBUTE_IS_MANAGED:
    putFlag(data, a && a->managed);
    break;
  case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
  case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
  case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:
    putFlag(data, false);
    break;
  case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
    put(data, a ? a->ctx->device()->ordinal() : -2);
    break;
  case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
  case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
    put(data, a ? CUdeviceptr(a->base) : 0);
    break;
  case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
  case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
    put(data, a ? a->size : size_t{0});
    break;
  case CU_POINTER_ATTRIBUTE_MAPPED:
    putFlag(data, a != nullptr);
    break;
  case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
    put(data, 0ull);
    break;
  case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: { // a mapping's CU_MEM_ACCESS_FLAGS_* are these values
    int flags =
        a ? CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE : CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE;
    if (a && a->kind == driver::MemoryKind::Mapped)
      flags = static_cast<int>(a->flags);
    put(data, flags);
    break;
  }
  case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
    put(data, a ? reinterpret_cast<CUmemoryPool>(a->pool) : CUmemoryPool{});
    break;
  case CU_POINTER_ATTRIBUTE_P2P_TOKENS: // no GPUDirect peers: zero tokens, as an H100 gives
    put(data, CUDA_POINTER_ATTRIBUTE_P2P_TOKENS{});
    break;
  default: // unknown attributes
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "attr = {} is not a value this call takes",
                        static_cast<long long>(attr));
  }
  return CUDA_SUCCESS;
}

} // namespace

CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  driver::Allocation a;
  if (!driver::memory().find(static_cast<uintptr_t>(ptr), 0, &a))
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "{:#x} is not in memory CUDA allocated", ptr);
  return impl::attribute(attribute, data, &a, ptr, false);
}

CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes,
                                void **data, CUdeviceptr ptr) {
  if (numAttributes == 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "numAttributes is 0");
  driver::Allocation a;
  const bool known = driver::memory().find(static_cast<uintptr_t>(ptr), 0, &a);
  for (unsigned i = 0; i < numAttributes; ++i) {
    if (!data[i])
      return driver::fail(CUDA_ERROR_INVALID_VALUE, "data[{}] is NULL", i);
    if (CUresult r = impl::attribute(attributes[i], data[i], known ? &a : nullptr, ptr, true);
        r != CUDA_SUCCESS)
      return r;
  }
  return CUDA_SUCCESS;
}

CUresult cuPointerSetAttribute(const void *value, CUpointer_attribute attribute, CUdeviceptr ptr) {
  if (attribute != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS) // the only settable attribute
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "attribute {} cannot be set",
                        static_cast<int>(attribute));
  const bool on = *static_cast<const unsigned char *>(value) != 0; // a C bool
  return driver::memory().setSyncMemops(static_cast<uintptr_t>(ptr), on)
             ? CUDA_SUCCESS
             : driver::fail(CUDA_ERROR_INVALID_VALUE, "{:#x} is not in a live allocation", ptr);
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr) {
  if (!pbase && !psize) // nothing to answer: success even with no context, as an H200 answers
    return CUDA_SUCCESS;
  if (CUresult r = check::context(); r != CUDA_SUCCESS)
    return r;
  driver::Allocation a;
  if (!driver::memory().find(static_cast<uintptr_t>(dptr), 0, &a))
    return driver::fail(CUDA_ERROR_NOT_FOUND, "{:#x} is not in memory CUDA allocated", dptr);
  if (pbase)
    *pbase = a.base;
  if (psize)
    *psize = a.size;
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
