// Entry points: initialisation, version, error text, device management.
#include "entry.h"
#include "entry_points.h"
#include "error_text.h"

#include "cucpu/driver/device.h"

#include <algorithm>
#include <cstring>

namespace cucpu::api::impl {

CUresult cuGetErrorString(CUresult error, const char **pStr) {
  if (!pStr)
    return CUDA_ERROR_INVALID_VALUE;
  const char *s = cucpu_error_string(static_cast<int>(error));
  *pStr = s;
  return s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorName(CUresult error, const char **pStr) {
  if (!pStr)
    return CUDA_ERROR_INVALID_VALUE;
  const char *s = cucpu_error_name(static_cast<int>(error));
  *pStr = s;
  return s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuInit(unsigned int Flags) { return driver::initialize(Flags); }

CUresult cuDriverGetVersion(int *driverVersion) {
  if (!driverVersion)
    return CUDA_ERROR_INVALID_VALUE;
  *driverVersion = CUDA_VERSION;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  if (!driver::device(ordinal))
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!count)
    return CUDA_ERROR_INVALID_VALUE;
  *count = driver::deviceCount();
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  driver::Device *d;
  if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
    return r;
  if (!name || len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  size_t n = std::min(static_cast<size_t>(len) - 1, d->name().size());
  std::memcpy(name, d->name().data(), n);
  name[n] = '\0';
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
  driver::Device *d;
  if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
    return r;
  if (!bytes)
    return CUDA_ERROR_INVALID_VALUE;
  *bytes = d->totalMemory();
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
  driver::Device *d;
  if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
    return r;
  if (!pi)
    return CUDA_ERROR_INVALID_VALUE;
  return d->attribute(attrib, pi);
}

namespace {
CUresult getUuid(CUuuid *uuid, CUdevice dev) {
  driver::Device *d;
  if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
    return r;
  if (!uuid)
    return CUDA_ERROR_INVALID_VALUE;
  *uuid = d->uuid();
  return CUDA_SUCCESS;
}
} // namespace

CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) { return getUuid(uuid, dev); }
CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev) { return getUuid(uuid, dev); }

CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev) {
  driver::Device *d;
  if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
    return r;
  if (!major || !minor)
    return CUDA_ERROR_INVALID_VALUE;
  *major = d->ccMajor();
  *minor = d->ccMinor();
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
