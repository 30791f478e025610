// Table 7 of cuGetExportTable: the integrity check cudart 13 verifies (HMAC-MD2 over the
// process, the tables and every device, as ../shared/design/cudart-interop.md records).
#include "cucpu/driver/reason.h"
#include "entry_points.h"
#include "export_tables.h"
#include "md2.h"

#include <cstring>
#include <pthread.h>
#include <unistd.h>
#include <vector>

namespace cucpu::api::exports {
namespace {

constexpr uint8_t kKey[16] = {0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52,
                              0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F};

struct Header {
  uint32_t driverVersion, version, pid, thread;
  const void *primaryTable, *integrityTable, *checkFn;
  uint64_t unixSeconds;
};
static_assert(sizeof(Header) == 48);

template <typename T> void append(std::vector<uint8_t> &out, const T &v) {
  const auto *p = reinterpret_cast<const uint8_t *>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

CUresult computeCheck(uint32_t version, uint64_t unixSeconds, uint64_t *result) {
  int driverVersion = 0, count = 0;
  if (CUresult r = impl::cuDriverGetVersion(&driverVersion); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = impl::cuDeviceGetCount(&count); r != CUDA_SUCCESS)
    return r;
  Header h{static_cast<uint32_t>(driverVersion),
           version,
           static_cast<uint32_t>(getpid()),
           static_cast<uint32_t>(pthread_self()),
           primaryContextTable,
           integrityTable,
           integrityTable[1],
           unixSeconds};
  std::vector<uint8_t> message;
  append(message, h);
  for (CUdevice d = 0; d < count; ++d) {
    CUuuid uuid;
    int domain = 0, bus = 0, device = 0;
    if (CUresult r = impl::cuDeviceGetUuid_v2(&uuid, d); r != CUDA_SUCCESS)
      return r;
    impl::cuDeviceGetAttribute(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, d);
    impl::cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, d);
    impl::cuDeviceGetAttribute(&device, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, d);
    append(message, uuid.bytes);
    append(message, domain);
    append(message, bus);
    append(message, device);
  }
  Md2Digest digest = hmacMd2(kKey, message.data(), message.size());
  std::memcpy(result, digest.data(), digest.size());
  return CUDA_SUCCESS;
}

} // namespace

CUresult integrityCheck(unsigned version, unsigned long long unixSeconds,
                        unsigned long long *result) {
  if (!result)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "result is NULL");
  // The two earlier protocol versions answer fixed values; cudart 13 verifies only 13002.
  if (version == 13000) {
    result[0] = 0x3341181C03CB675CULL;
    result[1] = 0x8ED383AA1F4CD1E8ULL;
    return CUDA_SUCCESS;
  }
  if (version == 13001) {
    result[0] = 0x1841181C03CB675CULL;
    result[1] = 0x8ED383AA1F4CD1E8ULL;
    return CUDA_SUCCESS;
  }
  uint64_t r[2];
  CUresult e = computeCheck(version, unixSeconds, r);
  result[0] = r[0];
  result[1] = r[1];
  return e;
}

} // namespace cucpu::api::exports
