// Entry points: initialisation, version, error text, device management.
#include "entry.h"
#include "error_text.h"

#include "cucpu/driver/device.h"

#include <algorithm>
#include <cstring>

using namespace cucpu;
using api::entry;

namespace {
CUresult deviceOf(CUdevice dev, driver::Device **out) {
  if (CUresult r = api::requireInit(); r != CUDA_SUCCESS)
    return r;
  *out = driver::device(dev);
  return *out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
} // namespace

CUCPU_EXPORT CUresult cuGetErrorString(CUresult error, const char **pStr) {
  return entry("cuGetErrorString", [&] {
    if (!pStr)
      return CUDA_ERROR_INVALID_VALUE;
    const char *s = cucpu_error_string(static_cast<int>(error));
    *pStr = s;
    return s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  });
}

CUCPU_EXPORT CUresult cuGetErrorName(CUresult error, const char **pStr) {
  return entry("cuGetErrorName", [&] {
    if (!pStr)
      return CUDA_ERROR_INVALID_VALUE;
    const char *s = cucpu_error_name(static_cast<int>(error));
    *pStr = s;
    return s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  });
}

CUCPU_EXPORT CUresult cuInit(unsigned int Flags) {
  return entry("cuInit", [&] { return driver::initialize(Flags); });
}

CUCPU_EXPORT CUresult cuDriverGetVersion(int *driverVersion) {
  return entry("cuDriverGetVersion", [&] {
    if (!driverVersion)
      return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = CUDA_VERSION;
    return CUDA_SUCCESS;
  });
}

CUCPU_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  return entry("cuDeviceGet", [&] {
    if (CUresult r = api::requireInit(); r != CUDA_SUCCESS)
      return r;
    if (!device)
      return CUDA_ERROR_INVALID_VALUE;
    if (!driver::device(ordinal))
      return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
  });
}

CUCPU_EXPORT CUresult cuDeviceGetCount(int *count) {
  return entry("cuDeviceGetCount", [&] {
    if (CUresult r = api::requireInit(); r != CUDA_SUCCESS)
      return r;
    if (!count)
      return CUDA_ERROR_INVALID_VALUE;
    *count = driver::deviceCount();
    return CUDA_SUCCESS;
  });
}

CUCPU_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  return entry("cuDeviceGetName", [&] {
    driver::Device *d;
    if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
      return r;
    if (!name || len <= 0)
      return CUDA_ERROR_INVALID_VALUE;
    size_t n = std::min(static_cast<size_t>(len) - 1, d->name().size());
    std::memcpy(name, d->name().data(), n);
    name[n] = '\0';
    return CUDA_SUCCESS;
  });
}

CUCPU_EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
  return entry("cuDeviceTotalMem_v2", [&] {
    driver::Device *d;
    if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
      return r;
    if (!bytes)
      return CUDA_ERROR_INVALID_VALUE;
    *bytes = d->totalMemory();
    return CUDA_SUCCESS;
  });
}

CUCPU_EXPORT CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
  return entry("cuDeviceGetAttribute", [&] {
    driver::Device *d;
    if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
      return r;
    if (!pi)
      return CUDA_ERROR_INVALID_VALUE;
    return d->attribute(attrib, pi);
  });
}

static CUresult getUuid(const char *name, CUuuid *uuid, CUdevice dev) {
  return entry(name, [&] {
    driver::Device *d;
    if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
      return r;
    if (!uuid)
      return CUDA_ERROR_INVALID_VALUE;
    *uuid = d->uuid();
    return CUDA_SUCCESS;
  });
}

CUCPU_EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) {
  return getUuid("cuDeviceGetUuid", uuid, dev);
}

CUCPU_EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev) {
  return getUuid("cuDeviceGetUuid_v2", uuid, dev);
}

CUCPU_EXPORT CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev) {
  return entry("cuDeviceComputeCapability", [&] {
    driver::Device *d;
    if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
      return r;
    if (!major || !minor)
      return CUDA_ERROR_INVALID_VALUE;
    *major = d->ccMajor();
    *minor = d->ccMinor();
    return CUDA_SUCCESS;
  });
}
