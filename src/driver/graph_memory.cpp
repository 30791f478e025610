// Graph-owned memory: the blocks memory allocation nodes reserve when they are added, whether a
// launch has made them live, and what cuDeviceGetGraphMemAttribute reports.
#include "cucpu/driver/graph.h"

#include "cucpu/driver/memory.h"

#include <atomic>

namespace cucpu::driver {
namespace {

struct GraphMemory {
  std::mutex mutex;
  std::map<CUdeviceptr, std::weak_ptr<GraphAllocation>> blocks;
  unsigned long long high = 0;
};
GraphMemory &graphMemory() {
  static auto *m = new GraphMemory;
  return *m;
}
// Graph allocations alive: frees of other memory look no further while there are none.
std::atomic<size_t> blockCount{0};

} // namespace

CUresult allocateGraphMemory(Context *ctx, size_t bytes, std::shared_ptr<GraphAllocation> *out) {
  CUdeviceptr p;
  if (CUresult r = memory().allocate(ctx, bytes, &p); r != CUDA_SUCCESS)
    return r;
  auto a = std::make_shared<GraphAllocation>();
  a->ptr = p;
  a->bytes = bytes;
  std::lock_guard lk(graphMemory().mutex);
  graphMemory().blocks[p] = a;
  ++blockCount;
  *out = std::move(a);
  return CUDA_SUCCESS;
}

GraphAllocation::~GraphAllocation() {
  {
    std::lock_guard lk(graphMemory().mutex);
    graphMemory().blocks.erase(ptr);
    --blockCount;
  }
  memory().free(ptr);
}

std::shared_ptr<GraphAllocation> findGraphMemory(CUdeviceptr ptr) {
  if (blockCount.load(std::memory_order_relaxed) == 0)
    return nullptr;
  std::lock_guard lk(graphMemory().mutex);
  auto it = graphMemory().blocks.find(ptr);
  return it == graphMemory().blocks.end() ? nullptr : it->second.lock();
}

bool releaseGraphMemory(CUdeviceptr ptr) {
  auto a = findGraphMemory(ptr);
  if (!a)
    return false;
  a->live = false;
  return true;
}

// Memory held by executable graphs (instantiated allocations), as the driver's
// CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT counts it.
unsigned long long graphMemoryInUse() {
  std::lock_guard lk(graphMemory().mutex);
  unsigned long long used = 0;
  for (auto &[p, weak] : graphMemory().blocks)
    if (auto a = weak.lock(); a && a->execs > 0)
      used += a->bytes;
  graphMemory().high = std::max(graphMemory().high, used);
  return used;
}

unsigned long long graphMemoryHigh() {
  graphMemoryInUse();
  std::lock_guard lk(graphMemory().mutex);
  return graphMemory().high;
}

void resetGraphMemoryHigh() {
  std::lock_guard lk(graphMemory().mutex);
  graphMemory().high = 0;
}

} // namespace cucpu::driver
