// Entry points: CUDA arrays and mipmapped arrays (copies with arrays: api_memcpy3d.cpp).
#include "checks.h"
#include "entry_points.h"

#include "cucpu/driver/image.h"
#include "cucpu/driver/stream.h"

namespace cucpu::api::impl {
namespace {

CUresult arrayOf(CUarray h, std::shared_ptr<driver::Array> *out) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  *out = driver::findArray(h);
  return *out ? CUDA_SUCCESS
              : driver::fail(CUDA_ERROR_INVALID_HANDLE, "array {} is not live",
                             static_cast<void *>(h));
}

// After the checks of a current context, the output and the descriptor.
CUresult create3D(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d) {
  std::shared_ptr<driver::Array> a;
  if (CUresult r = driver::Array::create(driver::current(), *d, &a); r != CUDA_SUCCESS)
    return r;
  return driver::registerArray(std::move(a), out);
}

} // namespace

CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray) {
  if (!pAllocateArray)
    return requireInit() != CUDA_SUCCESS
               ? requireInit()
               : driver::fail(CUDA_ERROR_INVALID_VALUE, "pAllocateArray is NULL");
  CUDA_ARRAY3D_DESCRIPTOR d{};
  d.Width = pAllocateArray->Width;
  d.Height = pAllocateArray->Height;
  d.Format = pAllocateArray->Format;
  d.NumChannels = pAllocateArray->NumChannels;
  if (CUresult r = check::context(); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = check::out(pHandle, "pHandle"); r != CUDA_SUCCESS)
    return r;
  return create3D(pHandle, &d);
}

CUresult cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray) {
  return create3D(pHandle, pAllocateArray);
}

CUresult cuArrayDestroy(CUarray hArray) {
  // As NVIDIA's driver does, the destruction waits for the array's context's queued work.
  if (std::shared_ptr<driver::Array> a; arrayOf(hArray, &a) == CUDA_SUCCESS)
    driver::synchronizeStreams(a->context());
  return driver::destroyArray(hArray);
}

CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *pArrayDescriptor, CUarray hArray) {
  std::shared_ptr<driver::Array> a;
  if (CUresult r = arrayOf(hArray, &a); r != CUDA_SUCCESS)
    return r;
  if (!pArrayDescriptor)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "pArrayDescriptor is NULL");
  const auto &d = a->descriptor();
  pArrayDescriptor->Width = d.Width;
  pArrayDescriptor->Height = d.Height;
  pArrayDescriptor->Format = d.Format;
  pArrayDescriptor->NumChannels = d.NumChannels;
  return CUDA_SUCCESS;
}

CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *pArrayDescriptor, CUarray hArray) {
  std::shared_ptr<driver::Array> a;
  if (CUresult r = arrayOf(hArray, &a); r != CUDA_SUCCESS)
    return r;
  if (!pArrayDescriptor)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "pArrayDescriptor is NULL");
  *pArrayDescriptor = a->descriptor();
  return CUDA_SUCCESS;
}

CUresult cuMipmappedArrayCreate(CUmipmappedArray *pHandle,
                                const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
                                unsigned int numMipmapLevels) {
  std::shared_ptr<driver::MipmappedArray> m;
  if (CUresult r = driver::MipmappedArray::create(driver::current(), *pMipmappedArrayDesc,
                                                  numMipmapLevels, &m);
      r != CUDA_SUCCESS)
    return r;
  return driver::registerMipmappedArray(std::move(m), pHandle);
}

CUresult cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray) {
  return driver::destroyMipmappedArray(hMipmappedArray);
}

CUresult cuMipmappedArrayGetLevel(CUarray *pLevelArray, CUmipmappedArray hMipmappedArray,
                                  unsigned int level) {
  auto m = driver::findMipmappedArray(hMipmappedArray);
  if (!m)
    return driver::fail(CUDA_ERROR_INVALID_HANDLE, "the mipmapped array is not live");
  if (!pLevelArray)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "pLevelArray is NULL");
  if (level >= m->levels().size())
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "level {}: the array has {} levels", level,
                        m->levels().size());
  *pLevelArray = reinterpret_cast<CUarray>(m->levels()[level].get());
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
