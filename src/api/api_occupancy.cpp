// Entry points: the occupancy calculator. A multiprocessor is a worker thread; it holds as many
// blocks as a compute capability 8.0 GPU's would (Function::activeBlocksPerMultiprocessor), and
// cooperative grids may have that many per multiprocessor.
#include "entry.h"
#include "entry_points.h"

#include "cucpu/driver/context.h"
#include "cucpu/driver/device.h"
#include "cucpu/driver/module.h"

#include <algorithm>

namespace cucpu::api::impl {
namespace {

constexpr unsigned kKnownFlags = CU_OCCUPANCY_DEFAULT | CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE;

CUresult activeBlocks(int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize,
                      unsigned flags) {
  driver::Function *f;
  if (CUresult r = functionOf(func, &f); r != CUDA_SUCCESS)
    return r;
  if (!numBlocks || blockSize <= 0 || (flags & ~kKnownFlags))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "rejected: !numBlocks || blockSize <= 0 || (flags & ~kKnownFlags)");
  *numBlocks = f->activeBlocksPerMultiprocessor(blockSize, dynamicSMemSize);
  return CUDA_SUCCESS;
}

// As CUDA's calculator: the block size giving the most resident threads per multiprocessor (the
// largest of equals), trying the limit and then each smaller multiple of the warp size.
CUresult potentialBlockSize(int *minGridSize, int *blockSize, CUfunction func,
                            CUoccupancyB2DSize toDynamicShared, size_t dynamicSMemSize,
                            int blockSizeLimit, unsigned flags) {
  driver::Function *f;
  if (CUresult r = functionOf(func, &f); r != CUDA_SUCCESS)
    return r;
  if (!minGridSize || !blockSize || blockSizeLimit < 0 || (flags & ~kKnownFlags))
    return driver::fail(
        CUDA_ERROR_INVALID_VALUE,
        "rejected: !minGridSize || !blockSize || blockSizeLimit < 0 || (flags & ~kKnownFlags)");
  int limit = f->maxThreadsPerBlock();
  if (blockSizeLimit > 0)
    limit = std::min(limit, blockSizeLimit);
  int bestSize = 0, bestBlocks = 0;
  for (int size = limit; size >= 1; size = size % 32 ? size - size % 32 : size - 32) {
    const size_t shared = toDynamicShared ? toDynamicShared(size) : dynamicSMemSize;
    const int blocks = f->activeBlocksPerMultiprocessor(size, shared);
    if (blocks * size > bestBlocks * bestSize) {
      bestSize = size;
      bestBlocks = blocks;
    }
  }
  *blockSize = bestSize;
  *minGridSize = bestBlocks * static_cast<int>(f->module()->context()->device()->multiprocessors());
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
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "rejected: !dynamicSmemSize || numBlocks <= 0 || blockSize <= 0");
  *dynamicSmemSize = f->availableDynamicShared(numBlocks, blockSize);
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
