// Records NVIDIA's answers for compressible memory: the device attributes, cuMemCreate asked for
// each compression type, the properties reported back, and that the memory holds what is written
// to it (compression is invisible to a program). It prints
// no address, so its output on cucpu must equal the GPU's: tests/gpu/answers/compression.txt,
// compared by the ctest api_compression_answers.
#include "record.h"

#include <cuda.h>

#include <cstring>
#include <vector>

namespace {

CUmemAllocationProp deviceProp(int compression) {
  CUmemAllocationProp p;
  std::memset(&p, 0, sizeof p);
  p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  p.location.id = 0;
  p.allocFlags.compressionType = (unsigned char)compression;
  return p;
}

// Writes a pattern through the copy engine, reads it back and says whether it survived.
void roundTrip(CUdeviceptr p, size_t bytes) {
  std::vector<unsigned> in(bytes / 4), out(bytes / 4, 0);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = unsigned(i * 2654435761u);
  SHOW(cuMemcpyHtoD(p, in.data(), bytes));
  SHOW(cuMemsetD32(p + 64, 0xabcdef01u, 16));
  for (size_t i = 16; i < 32; ++i)
    in[i] = 0xabcdef01u;
  SHOW(cuMemcpyDtoH(out.data(), p, bytes));
  std::printf("contents %s\n", in == out ? "equal" : "differ");
}

void createdHandles() {
  int value = -1;
  SHOWV(cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, 0), value);
  SHOWV(cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK, 0), value);
  SHOWV(cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH, 0), value);
  for (int type :
       {int(CU_MEM_ALLOCATION_COMP_NONE), int(CU_MEM_ALLOCATION_COMP_GENERIC), 2, 0xff}) {
    std::printf("-- cuMemCreate, compressionType %d\n", type);
    CUmemAllocationProp prop = deviceProp(type);
    size_t gran = 0;
    SHOWV(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), gran);
    SHOWV(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), gran);
    CUmemGenericAllocationHandle h = 0;
    CUresult r = cuMemCreate(&h, 2 << 20, &prop, 0);
    std::printf("cuMemCreate %d\n", int(r));
    if (r != CUDA_SUCCESS)
      continue;
    CUmemAllocationProp back;
    std::memset(&back, 0x5a, sizeof back);
    SHOWV(cuMemGetAllocationPropertiesFromHandle(&back, h), int(back.allocFlags.compressionType));
    std::printf("gpuDirectRDMACapable %d usage %d\n", int(back.allocFlags.gpuDirectRDMACapable),
                int(back.allocFlags.usage));
    CUdeviceptr p = 0;
    SHOW(cuMemAddressReserve(&p, 2 << 20, 0, 0, 0));
    SHOW(cuMemMap(p, 2 << 20, 0, h, 0));
    CUmemAccessDesc access;
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    SHOW(cuMemSetAccess(p, 2 << 20, &access, 1));
    roundTrip(p, 1 << 20);
    CUmemGenericAllocationHandle again = 0;
    SHOW(cuMemRetainAllocationHandle(&again, reinterpret_cast<void *>(p)));
    std::printf("same handle %d\n", int(again == h));
    SHOW(cuMemRelease(again));
    SHOW(cuMemUnmap(p, 2 << 20));
    SHOW(cuMemAddressFree(p, 2 << 20));
    SHOW(cuMemRelease(h));
  }
}

} // namespace

int main() {
  CUcontext ctx;
  if (cuInit(0) || cuDevicePrimaryCtxRetain(&ctx, 0) || cuCtxSetCurrent(ctx)) {
    std::printf("set-up failed\n");
    return 3;
  }
  createdHandles();
  return 0;
}
