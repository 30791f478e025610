// Entry points: advice and prefetches for managed memory, and the range attributes that report
// them. Managed memory is ordinary host memory here, so nothing moves; what the application
// advised or prefetched is recorded per allocation (not per page) and reported back.
#include "cucpu/driver/capture.h"
#include "device_ptr.h"
#include "entry_points.h"
#include "stream_ref.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace cucpu::api::impl {
namespace {

constexpr int kCpuBit = 63;

// The managed allocation holding [p, p + count), or INVALID_VALUE.
CUresult managedRange(CUdeviceptr p, size_t count, driver::Allocation *out) {
  if (count == 0 || !driver::memory().find(p, count, out) || !out->managed)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "[{:#x}, +{} bytes) is empty or not in one managed allocation", p, count);
  return CUDA_SUCCESS;
}

// The CPU, or a device whose bit fits the accessed-by mask.
bool validLocation(int device) {
  return device == CU_DEVICE_CPU ||
         (device >= 0 && device < std::min(driver::deviceCount(), kCpuBit));
}

int deviceOf(const CUmemLocation &l) {
  switch (l.type) {
  case CU_MEM_LOCATION_TYPE_DEVICE:
    return l.id;
  case CU_MEM_LOCATION_TYPE_HOST:
  case CU_MEM_LOCATION_TYPE_HOST_NUMA:
  case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
    return CU_DEVICE_CPU;
  default:
    return CU_DEVICE_INVALID;
  }
}

// A bad device is INVALID_DEVICE through the CUdevice (v1) entry points and INVALID_VALUE
// through the CUmemLocation ones, as NVIDIA's driver answers.
CUresult advise(CUdeviceptr p, size_t count, CUmem_advise advice, int device, bool location) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  driver::Allocation a;
  if (CUresult r = managedRange(p, count, &a); r != CUDA_SUCCESS)
    return r;
  const bool needsDevice =
      advice != CU_MEM_ADVISE_SET_READ_MOSTLY && advice != CU_MEM_ADVISE_UNSET_READ_MOSTLY;
  if (advice < CU_MEM_ADVISE_SET_READ_MOSTLY || advice > CU_MEM_ADVISE_UNSET_ACCESSED_BY)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "advice {} is unknown", static_cast<int>(advice));
  if (needsDevice && !validLocation(device))
    return driver::fail(location ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_INVALID_DEVICE,
                        "{} is not a location this advice takes", int(device));
  const uint64_t bit = uint64_t(1) << (device == CU_DEVICE_CPU ? kCpuBit : device);
  driver::memory().update(p, [&](driver::Allocation &m) {
    switch (advice) {
    case CU_MEM_ADVISE_SET_READ_MOSTLY:
      m.readMostly = true;
      break;
    case CU_MEM_ADVISE_UNSET_READ_MOSTLY:
      m.readMostly = false;
      break;
    case CU_MEM_ADVISE_SET_PREFERRED_LOCATION:
      m.preferredLocation = device;
      break;
    case CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION:
      m.preferredLocation = CU_DEVICE_INVALID;
      break;
    case CU_MEM_ADVISE_SET_ACCESSED_BY:
      m.accessedBy |= bit;
      break;
    default:
      m.accessedBy &= ~bit;
      break;
    }
  });
  return CUDA_SUCCESS;
}

CUresult prefetch(CUdeviceptr p, size_t count, int device, CUstream h, bool perThread,
                  bool location = false) {
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(h, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::uncapturable(s, "a prefetch"); r != CUDA_SUCCESS)
    return r;
  driver::Allocation a;
  if (!count || !validDevice(p, count))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "[{:#x}, +{} bytes) is empty or not inside one live allocation", p, count);
  if (!validLocation(device))
    return driver::fail(location ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_INVALID_DEVICE,
                        "{} is not a location to prefetch to", int(device));
  if (driver::memory().find(p, count, &a) && a.managed)
    driver::memory().update(p, [device](driver::Allocation &m) { m.lastPrefetch = device; });
  return CUDA_SUCCESS;
}

// A batch of managed ranges (CUDA 13's batched prefetch and discard), checked as an H200 checks
// it: a stream other than the legacy default stream, a non-empty batch, each range inside one
// managed allocation; with locations, the first applying from range 0 and each later one from a
// range at or after the one before (an H200 takes equal starts), all within the batch.
struct Batch {
  CUdeviceptr *dptrs;
  size_t *sizes;
  size_t count;
  CUmemLocation *locs = nullptr;
  size_t *locIdxs = nullptr;
  size_t numLocs = 0;
};

CUresult checkBatch(const Batch &b, CUstream h, bool perThread, bool withLocations) {
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(h, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (h == CU_STREAM_LEGACY || (!h && !perThread))
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "batches cannot go into the legacy stream");
  if (CUresult r = driver::uncapturable(s, "a batched prefetch or discard"); r != CUDA_SUCCESS)
    return r;
  if (b.count == 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "the batch is empty");
  for (size_t i = 0; i < b.count; ++i) {
    driver::Allocation a;
    if (CUresult r = managedRange(b.dptrs[i], b.sizes[i], &a); r != CUDA_SUCCESS)
      return r;
  }
  if (!withLocations)
    return CUDA_SUCCESS;
  if (!b.locs || !b.locIdxs || b.numLocs == 0 || b.numLocs > b.count)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "prefetchLocs or prefetchLocIdxs is NULL, or numPrefetchLocs = {} is not "
                        "in [1, {}]",
                        b.numLocs, b.count);
  for (size_t k = 0; k < b.numLocs; ++k) {
    const size_t first = b.locIdxs[k];
    if ((k == 0 && first != 0) || (k > 0 && first < b.locIdxs[k - 1]) || first >= b.count)
      return driver::fail(CUDA_ERROR_INVALID_VALUE,
                          "prefetchLocIdxs[{}] = {} does not start a run of the batch", k, first);
    if (!validLocation(deviceOf(b.locs[k])))
      return driver::fail(CUDA_ERROR_INVALID_VALUE, "prefetchLocs[{}] is not a location", k);
  }
  return CUDA_SUCCESS;
}

// Each range's last prefetch location: the last location whose run starts at or before it.
void prefetchBatch(const Batch &b) {
  size_t k = 0;
  for (size_t i = 0; i < b.count; ++i) {
    while (k + 1 < b.numLocs && b.locIdxs[k + 1] <= i)
      ++k;
    const int device = deviceOf(b.locs[k]);
    driver::memory().update(b.dptrs[i],
                            [device](driver::Allocation &m) { m.lastPrefetch = device; });
  }
}

// Discarding first changes nothing here: discarded contents are undefined until written again,
// and keeping them is one of their values.
CUresult prefetchBatchAsync(const Batch &b, CUstream h, bool perThread) {
  if (CUresult r = checkBatch(b, h, perThread, true); r != CUDA_SUCCESS)
    return r;
  prefetchBatch(b);
  return CUDA_SUCCESS;
}

CUmemLocationType typeOf(int device) {
  return device == CU_DEVICE_CPU       ? CU_MEM_LOCATION_TYPE_HOST
         : device == CU_DEVICE_INVALID ? CU_MEM_LOCATION_TYPE_INVALID
                                       : CU_MEM_LOCATION_TYPE_DEVICE;
}

CUresult rangeAttribute(void *data, size_t size, CUmem_range_attribute attr,
                        const driver::Allocation &a) {
  if (!data)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "data is NULL");
  auto put = [&](int v) {
    if (size != sizeof(int))
      return driver::fail(CUDA_ERROR_INVALID_VALUE, "dataSize = {} is not the size of an int",
                          size);
    std::memcpy(data, &v, sizeof v);
    return CUDA_SUCCESS;
  };
  switch (attr) {
  case CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY:
    return put(a.readMostly ? 1 : 0);
  case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION:
    return put(a.preferredLocation);
  case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION:
    return put(a.lastPrefetch);
  case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE:
    return put(typeOf(a.preferredLocation));
  case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID: // the driver reports -1 for the host too
    return put(a.preferredLocation);
  case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE:
    return put(typeOf(a.lastPrefetch));
  case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID:
    return put(a.lastPrefetch);
  case CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY: { // the devices, then CU_DEVICE_INVALID to the end
    if (size == 0 || size % sizeof(int) != 0)
      return driver::fail(CUDA_ERROR_INVALID_VALUE,
                          "dataSize = {} is not a multiple of an int's size", size);
    std::vector<int> out(size / sizeof(int), CU_DEVICE_INVALID);
    size_t n = 0;
    for (int d = 0; d < 64 && n < out.size(); ++d)
      if (a.accessedBy >> d & 1)
        out[n++] = d == kCpuBit ? CU_DEVICE_CPU : d;
    std::memcpy(data, out.data(), size);
    return CUDA_SUCCESS;
  }
  default:
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "attr = {} is not a value this call takes",
                        static_cast<long long>(attr));
  }
}

CUresult rangeOf(CUdeviceptr p, size_t count, driver::Allocation *a) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  return managedRange(p, count, a);
}

} // namespace

CUresult cuMemAdvise(CUdeviceptr p, size_t count, CUmem_advise advice, CUdevice device) {
  return advise(p, count, advice, device, false);
}
CUresult cuMemAdvise_v2(CUdeviceptr p, size_t count, CUmem_advise advice, CUmemLocation l) {
  return advise(p, count, advice, deviceOf(l), true);
}

CUresult cuMemPrefetchAsync(CUdeviceptr p, size_t count, CUdevice d, CUstream h) {
  return prefetch(p, count, d, h, false);
}
CUresult cuMemPrefetchAsync_ptsz(CUdeviceptr p, size_t count, CUdevice d, CUstream h) {
  return prefetch(p, count, d, h, true);
}
CUresult cuMemPrefetchAsync_v2(CUdeviceptr p, size_t count, CUmemLocation l, unsigned int flags,
                               CUstream h) {
  return flags ? CUDA_ERROR_INVALID_VALUE : prefetch(p, count, deviceOf(l), h, false, true);
}
CUresult cuMemPrefetchAsync_v2_ptsz(CUdeviceptr p, size_t count, CUmemLocation l,
                                    unsigned int flags, CUstream h) {
  return flags ? CUDA_ERROR_INVALID_VALUE : prefetch(p, count, deviceOf(l), h, true, true);
}

CUresult cuMemRangeGetAttribute(void *data, size_t dataSize, CUmem_range_attribute attribute,
                                CUdeviceptr devPtr, size_t count) {
  driver::Allocation a;
  if (CUresult r = rangeOf(devPtr, count, &a); r != CUDA_SUCCESS)
    return r;
  return rangeAttribute(data, dataSize, attribute, a);
}

CUresult cuMemRangeGetAttributes(void **data, size_t *dataSizes, CUmem_range_attribute *attributes,
                                 size_t numAttributes, CUdeviceptr devPtr, size_t count) {
  if (!data || !dataSizes || !attributes || numAttributes == 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "data, dataSizes or attributes is NULL, or numAttributes is 0");
  driver::Allocation a;
  if (CUresult r = rangeOf(devPtr, count, &a); r != CUDA_SUCCESS)
    return r;
  for (size_t i = 0; i < numAttributes; ++i)
    if (CUresult r = rangeAttribute(data[i], dataSizes[i], attributes[i], a); r != CUDA_SUCCESS)
      return r;
  return CUDA_SUCCESS;
}

CUresult cuMemPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                 CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                 size_t numPrefetchLocs, unsigned long long, CUstream h) {
  return prefetchBatchAsync({dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs},
                            h, false);
}
CUresult cuMemPrefetchBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                      CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                      size_t numPrefetchLocs, unsigned long long, CUstream h) {
  return prefetchBatchAsync({dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs},
                            h, true);
}
CUresult cuMemDiscardAndPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                           CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                           size_t numPrefetchLocs, unsigned long long, CUstream h) {
  return prefetchBatchAsync({dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs},
                            h, false);
}
CUresult cuMemDiscardAndPrefetchBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                                CUmemLocation *prefetchLocs,
                                                size_t *prefetchLocIdxs, size_t numPrefetchLocs,
                                                unsigned long long, CUstream h) {
  return prefetchBatchAsync({dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs},
                            h, true);
}
CUresult cuMemDiscardBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count, unsigned long long,
                                CUstream h) {
  return checkBatch({dptrs, sizes, count}, h, false, false);
}
CUresult cuMemDiscardBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                     unsigned long long, CUstream h) {
  return checkBatch({dptrs, sizes, count}, h, true, false);
}

} // namespace cucpu::api::impl
