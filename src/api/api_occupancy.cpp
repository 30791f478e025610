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

// After the registry's checks of the function, the outputs and the flags (which change nothing).
CUresult activeBlocks(int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize) {
  driver::Function *f;
  if (CUresult r = functionOf(func, &f); r != CUDA_SUCCESS)
    return r;
  if (blockSize <= 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "blockSize = {} is not positive", blockSize);
  *numBlocks = f->activeBlocksPerMultiprocessor(blockSize, dynamicSMemSize);
  return CUDA_SUCCESS;
}

// As CUDA's calculator: the block size giving the most resident threads per multiprocessor (the
// largest of equals), trying the limit and then each smaller multiple of the warp size.
CUresult potentialBlockSize(int *minGridSize, int *blockSize, CUfunction func,
                            CUoccupancyB2DSize toDynamicShared, size_t dynamicSMemSize,
                            int blockSizeLimit) {
  driver::Function *f;
  if (CUresult r = functionOf(func, &f); r != CUDA_SUCCESS)
    return r;
  if (blockSizeLimit < 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "blockSizeLimit = {} is negative",
                        blockSizeLimit);
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
  return activeBlocks(numBlocks, func, blockSize, dynamicSMemSize);
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, CUfunction func,
                                                              int blockSize, size_t dynamicSMemSize,
                                                              unsigned int) {
  return activeBlocks(numBlocks, func, blockSize, dynamicSMemSize);
}

CUresult cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction func,
                                          CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                          size_t dynamicSMemSize, int blockSizeLimit) {
  return potentialBlockSize(minGridSize, blockSize, func, blockSizeToDynamicSMemSize,
                            dynamicSMemSize, blockSizeLimit);
}

CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize,
                                                   CUfunction func,
                                                   CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                   size_t dynamicSMemSize, int blockSizeLimit,
                                                   unsigned int) {
  return potentialBlockSize(minGridSize, blockSize, func, blockSizeToDynamicSMemSize,
                            dynamicSMemSize, blockSizeLimit);
}

CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, CUfunction func,
                                                 int numBlocks, int blockSize) {
  driver::Function *f;
  if (CUresult r = functionOf(func, &f); r != CUDA_SUCCESS)
    return r;
  if (numBlocks <= 0 || blockSize <= 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "numBlocks = {} and blockSize = {}: not positive",
                        numBlocks, blockSize);
  *dynamicSmemSize = f->availableDynamicShared(numBlocks, blockSize);
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
