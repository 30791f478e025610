// Entry points: the occupancy calculator, with answers true for this implementation: a
// multiprocessor is a worker thread, and a worker runs one block at a time.
#include "entry.h"
#include "entry_points.h"

#include "cucpu/driver/module.h"

#include <algorithm>

namespace cucpu::api::impl {
namespace {

constexpr unsigned kKnownFlags = CU_OCCUPANCY_DEFAULT | CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE;

bool fits(const driver::Function *f, int blockSize, size_t dynamicShared) {
  return blockSize >= 1 && blockSize <= f->maxThreadsPerBlock() &&
         dynamicShared <= static_cast<size_t>(f->maxDynamicShared());
}

CUresult activeBlocks(int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize,
                      unsigned flags) {
  driver::Function *f;
  if (CUresult r = functionOf(func, &f); r != CUDA_SUCCESS)
    return r;
  if (!numBlocks || blockSize <= 0 || (flags & ~kKnownFlags))
    return CUDA_ERROR_INVALID_VALUE;
  *numBlocks = fits(f, blockSize, dynamicSMemSize) ? 1 : 0;
  return CUDA_SUCCESS;
}

CUresult potentialBlockSize(int *minGridSize, int *blockSize, CUfunction func,
                            CUoccupancyB2DSize toDynamicShared, size_t dynamicSMemSize,
                            int blockSizeLimit, unsigned flags) {
  driver::Function *f;
  if (CUresult r = functionOf(func, &f); r != CUDA_SUCCESS)
    return r;
  if (!minGridSize || !blockSize || blockSizeLimit < 0 || (flags & ~kKnownFlags))
    return CUDA_ERROR_INVALID_VALUE;
  int limit = f->maxThreadsPerBlock();
  if (blockSizeLimit > 0)
    limit = std::min(limit, blockSizeLimit);
  // The largest block that fits: one block per worker whatever its size, so bigger is better.
  for (int size = limit; size >= 1; size = size % 32 ? size - size % 32 : size - 32) {
    size_t shared = toDynamicShared ? toDynamicShared(size) : dynamicSMemSize;
    if (fits(f, size, shared)) {
      *blockSize = size;
      *minGridSize = static_cast<int>(f->module()->context()->device()->multiprocessors());
      return CUDA_SUCCESS;
    }
  }
  *blockSize = 0;
  *minGridSize = 0;
  return CUDA_SUCCESS;
}

} // namespace

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize,
                                                     size_t dynamicSMemSize) {
  return activeBlocks(numBlocks, func, blockSize, dynamicSMemSize, CU_OCCUPANCY_DEFAULT);
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, CUfunction func,
                                                              int blockSize, size_t dynamicSMemSize,
                                                              unsigned int flags) {
  return activeBlocks(numBlocks, func, blockSize, dynamicSMemSize, flags);
}

CUresult cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction func,
                                          CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                          size_t dynamicSMemSize, int blockSizeLimit) {
  return potentialBlockSize(minGridSize, blockSize, func, blockSizeToDynamicSMemSize,
                            dynamicSMemSize, blockSizeLimit, CU_OCCUPANCY_DEFAULT);
}

CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize,
                                                   CUfunction func,
                                                   CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                   size_t dynamicSMemSize, int blockSizeLimit,
                                                   unsigned int flags) {
  return potentialBlockSize(minGridSize, blockSize, func, blockSizeToDynamicSMemSize,
                            dynamicSMemSize, blockSizeLimit, flags);
}

CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, CUfunction func,
                                                 int numBlocks, int blockSize) {
  driver::Function *f;
  if (CUresult r = functionOf(func, &f); r != CUDA_SUCCESS)
    return r;
  if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  // Only one block is resident per worker: more blocks cannot share one.
  *dynamicSmemSize = numBlocks == 1 && blockSize <= f->maxThreadsPerBlock()
                         ? static_cast<size_t>(f->maxDynamicShared())
                         : 0;
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
