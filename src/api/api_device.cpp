// Entry points: initialisation, version, error text, device management.
#include "entry.h"
#include "entry_points.h"
#include "error_text.h"

#include "cucpu/driver/device.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace cucpu::api::impl {

namespace {
// The caller may pass any integer as a CUresult: read it as one, never as an enumerator.
int codeOf(const CUresult &error) {
  int code;
  std::memcpy(&code, &error, sizeof code);
  return code;
}
} // namespace

CUresult cuGetErrorString(CUresult error, const char **pStr) {
  const char *s = cucpu_error_string(codeOf(error));
  *pStr = s;
  return s ? CUDA_SUCCESS
           : driver::fail(CUDA_ERROR_INVALID_VALUE, "{} is no CUresult", codeOf(error));
}

CUresult cuGetErrorName(CUresult error, const char **pStr) {
  const char *s = cucpu_error_name(codeOf(error));
  *pStr = s;
  return s ? CUDA_SUCCESS
           : driver::fail(CUDA_ERROR_INVALID_VALUE, "{} is no CUresult", codeOf(error));
}

CUresult cuInit(unsigned int Flags) { return driver::initialize(Flags); }

CUresult cuDriverGetVersion(int *driverVersion) {
  *driverVersion = CUDA_VERSION;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (!driver::device(ordinal))
    return driver::fail(CUDA_ERROR_INVALID_DEVICE, "there is no device {}", ordinal);
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  *count = driver::deviceCount();
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  const driver::Device *d = driver::device(dev);
  if (len <= 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "len = {} leaves no room", len);
  size_t n = std::min(static_cast<size_t>(len) - 1, d->name().size());
  std::memcpy(name, d->name().data(), n);
  name[n] = '\0';
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
  *bytes = driver::device(dev)->totalMemory();
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
  return driver::device(dev)->attribute(attrib, pi);
}

CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) {
  *uuid = driver::device(dev)->uuid();
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev) { return impl::cuDeviceGetUuid(uuid, dev); }

CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev) {
  const driver::Device *d = driver::device(dev);
  *major = d->ccMajor();
  *minor = d->ccMinor();
  return CUDA_SUCCESS;
}

namespace {

int attributeOf(const driver::Device *d, CUdevice_attribute a) {
  int v = 0;
  d->attribute(a, &v);
  return v;
}

// "dddd:bb:dd.f" (hex), or the forms without domain or function; false when malformed.
bool parsePciBusId(const char *s, unsigned *domain, unsigned *bus, unsigned *device) {
  unsigned a, b, c, f = 0;
  int n = 0;
  if (std::sscanf(s, "%x:%x:%x%n", &a, &b, &c, &n) == 3 && (s[n] == '\0' || s[n] == '.')) {
    *domain = a, *bus = b, *device = c;
  } else if (n = 0; std::sscanf(s, "%x:%x%n", &b, &c, &n) == 2 && (s[n] == '\0' || s[n] == '.')) {
    *domain = 0, *bus = b, *device = c;
  } else {
    return false;
  }
  if (s[n] == '.' && (std::sscanf(s + n + 1, "%x", &f) != 1 || f != 0))
    return false;
  return true;
}

} // namespace

CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev) {
  const driver::Device *d = driver::device(dev);
  if (len <= 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "len = {} leaves no room", len);
  std::snprintf(pciBusId, static_cast<size_t>(len), "%04x:%02x:%02x.0",
                attributeOf(d, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID),
                attributeOf(d, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
                attributeOf(d, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID));
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId) {
  unsigned domain, bus, device;
  if (!parsePciBusId(pciBusId, &domain, &bus, &device))
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "'{}' is not a PCI bus id", pciBusId);
  for (int i = 0; i < driver::deviceCount(); ++i) {
    const driver::Device *d = driver::device(i);
    if (unsigned(attributeOf(d, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)) == domain &&
        unsigned(attributeOf(d, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)) == bus &&
        unsigned(attributeOf(d, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)) == device) {
      *dev = i;
      return CUDA_SUCCESS;
    }
  }
  return driver::fail(CUDA_ERROR_INVALID_DEVICE, "no device has PCI bus id '{}'", pciBusId);
}

CUresult cuDeviceGetProperties(CUdevprop *prop, CUdevice dev) {
  const driver::Device *d = driver::device(dev);
  auto a = [&](CUdevice_attribute at) { return attributeOf(d, at); };
  prop->maxThreadsPerBlock = a(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  prop->maxThreadsDim[0] = a(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  prop->maxThreadsDim[1] = a(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  prop->maxThreadsDim[2] = a(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  prop->maxGridSize[0] = a(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  prop->maxGridSize[1] = a(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  prop->maxGridSize[2] = a(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
  prop->sharedMemPerBlock = a(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  prop->totalConstantMemory = a(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
  prop->SIMDWidth = a(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  prop->memPitch = a(CU_DEVICE_ATTRIBUTE_MAX_PITCH);
  prop->regsPerBlock = a(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  prop->clockRate = a(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  prop->textureAlign = a(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetTexture1DLinearMaxWidth(size_t *maxWidthInElements, CUarray_format format,
                                            unsigned numChannels, CUdevice dev) {
  if (numChannels != 1 && numChannels != 2 && numChannels != 4)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "numChannels = {} is not 1, 2 or 4", numChannels);
  if (format == 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "format is 0");
  *maxWidthInElements = static_cast<size_t>(
      attributeOf(driver::device(dev), CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH));
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetExecAffinitySupport(int *pi, CUexecAffinityType, CUdevice) {
  *pi = 0; // worker threads cannot be partitioned between contexts
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
