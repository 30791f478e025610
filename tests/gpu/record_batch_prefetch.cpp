// Records NVIDIA's answers for CUDA 13's batched managed-memory operations
// (cuMemPrefetchBatchAsync, cuMemDiscardBatchAsync, cuMemDiscardAndPrefetchBatchAsync): valid
// batches, where each range's last prefetch went, and every refusal. It prints no address, so its
// output on cucpu must equal the GPU's: tests/gpu/answers/batch_prefetch.txt, compared by the
// ctest api_batch_prefetch_answers.
#include "record.h"

#include <cuda.h>

#include <cstring>

namespace {

CUstream stream;
CUdeviceptr managed[3];
size_t sizes[3] = {4096, 65536, 100};
CUdeviceptr device;

void batches() {
  CUmemLocation locs[2] = {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, {CU_MEM_LOCATION_TYPE_HOST, 0}};
  size_t idx[2] = {0, 2};
  std::printf("-- cuMemPrefetchBatchAsync\n");
  SHOW(cuMemPrefetchBatchAsync(managed, sizes, 3, locs, idx, 2, 0, stream));
  SHOW(cuStreamSynchronize(stream));
  int where = -5;
  SHOWV(cuMemRangeGetAttribute(&where, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, managed[0],
                               4096),
        where);
  SHOWV(cuMemRangeGetAttribute(&where, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, managed[2],
                               100),
        where);
  SHOW(cuMemPrefetchBatchAsync(managed, sizes, 3, locs, idx, 1, 0, stream));
  SHOW(cuMemPrefetchBatchAsync(managed, sizes, 3, locs, idx, 2, 1, stream));
  SHOW(cuMemPrefetchBatchAsync(managed, sizes, 3, locs, idx, 2, 0, nullptr));
  SHOW(cuMemPrefetchBatchAsync(managed, sizes, 3, locs, idx, 2, 0, CU_STREAM_PER_THREAD));
  SHOW(cuMemPrefetchBatchAsync(managed, sizes, 0, locs, idx, 0, 0, stream));
  SHOW(cuMemPrefetchBatchAsync(managed, sizes, 3, locs, idx, 0, 0, stream));
  SHOW(cuMemPrefetchBatchAsync(managed, sizes, 1, locs, idx, 2, 0, stream));
  SHOW(cuMemPrefetchBatchAsync(nullptr, sizes, 3, locs, idx, 2, 0, stream));
  SHOW(cuMemPrefetchBatchAsync(managed, nullptr, 3, locs, idx, 2, 0, stream));
  SHOW(cuMemPrefetchBatchAsync(managed, sizes, 3, nullptr, idx, 2, 0, stream));
  SHOW(cuMemPrefetchBatchAsync(managed, sizes, 3, locs, nullptr, 2, 0, stream));
  size_t badIdx[2] = {1, 2};
  SHOW(cuMemPrefetchBatchAsync(managed, sizes, 3, locs, badIdx, 2, 0, stream));
  size_t backIdx[2] = {0, 0};
  SHOW(cuMemPrefetchBatchAsync(managed, sizes, 3, locs, backIdx, 2, 0, stream));
  size_t pastIdx[2] = {0, 3};
  SHOW(cuMemPrefetchBatchAsync(managed, sizes, 3, locs, pastIdx, 2, 0, stream));
  CUmemLocation badLoc[1] = {{CU_MEM_LOCATION_TYPE_DEVICE, 9}};
  SHOW(cuMemPrefetchBatchAsync(managed, sizes, 3, badLoc, idx, 1, 0, stream));
  CUdeviceptr mixed[2] = {managed[0], device};
  size_t mixedSizes[2] = {4096, 4096};
  SHOW(cuMemPrefetchBatchAsync(mixed, mixedSizes, 2, locs, idx, 1, 0, stream));
  size_t tooBig[3] = {4096, 1 << 30, 100};
  SHOW(cuMemPrefetchBatchAsync(managed, tooBig, 3, locs, idx, 2, 0, stream));
  size_t zero[3] = {4096, 0, 100};
  SHOW(cuMemPrefetchBatchAsync(managed, zero, 3, locs, idx, 2, 0, stream));
  SHOW(cuStreamSynchronize(stream));

  std::printf("-- cuMemDiscardBatchAsync\n");
  SHOW(cuMemDiscardBatchAsync(managed, sizes, 3, 0, stream));
  SHOW(cuStreamSynchronize(stream));
  SHOW(cuMemDiscardBatchAsync(managed, sizes, 3, 1, stream));
  SHOW(cuMemDiscardBatchAsync(managed, sizes, 0, 0, stream));
  SHOW(cuMemDiscardBatchAsync(managed, sizes, 3, 0, nullptr));
  SHOW(cuMemDiscardBatchAsync(mixed, mixedSizes, 2, 0, stream));
  SHOW(cuMemDiscardBatchAsync(nullptr, sizes, 3, 0, stream));
  SHOW(cuStreamSynchronize(stream));

  std::printf("-- cuMemDiscardAndPrefetchBatchAsync\n");
  SHOW(cuMemDiscardAndPrefetchBatchAsync(managed, sizes, 3, locs, idx, 2, 0, stream));
  SHOW(cuStreamSynchronize(stream));
  SHOWV(cuMemRangeGetAttribute(&where, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, managed[1],
                               65536),
        where);
  SHOW(cuMemDiscardAndPrefetchBatchAsync(managed, sizes, 3, locs, idx, 2, 0, nullptr));
  SHOW(cuMemDiscardAndPrefetchBatchAsync(mixed, mixedSizes, 2, locs, idx, 1, 0, stream));
  SHOW(cuStreamSynchronize(stream));
  // Memory the batch made undefined is written and read again as usual.
  SHOW(cuMemsetD32(managed[1], 0x5a5a5a5a, 65536 / 4));
  SHOW(cuCtxSynchronize());
  std::printf("managed reads %x\n", reinterpret_cast<unsigned *>(managed[1])[100]);
}

} // namespace

int main() {
  CUcontext ctx;
  if (cuInit(0) || cuDevicePrimaryCtxRetain(&ctx, 0) || cuCtxSetCurrent(ctx) ||
      cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) || cuMemAlloc(&device, 4096)) {
    std::printf("set-up failed\n");
    return 3;
  }
  for (int i = 0; i < 3; ++i)
    if (cuMemAllocManaged(&managed[i], sizes[i], CU_MEM_ATTACH_GLOBAL)) {
      std::printf("set-up failed\n");
      return 3;
    }
  batches();
  return 0;
}
