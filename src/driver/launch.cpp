// Launch validation and execution: packs the .param space and hands the grid to the pool.
#include "cucpu/driver/launch.h"

#include "cucpu/driver/context.h"
#include "cucpu/driver/device.h"
#include "cucpu/driver/module.h"
#include "cucpu/driver/reason.h"
#include "cucpu/driver/sanitizer.h"
#include "cucpu/exec/thread_pool.h"
#include "cucpu/jit/program.h"
#include "cucpu/support/log.h"
#include "device_launches.h"
#include "device_services.h"

#include <cstring>

namespace cucpu::driver {
namespace {

exec::ThreadPool &pool() {
  static auto *p = new exec::ThreadPool(exec::defaultThreadCount());
  return *p;
}

constexpr uint32_t kMaxParamBytes = 32764;

// The error a GPU reports for a kernel fault.
CUresult faultError(exec::FaultKind k) {
  switch (k) {
  case exec::FaultKind::IllegalAddress:
    return CUDA_ERROR_ILLEGAL_ADDRESS;
  case exec::FaultKind::IllegalInstruction:
    return CUDA_ERROR_ILLEGAL_INSTRUCTION;
  case exec::FaultKind::Assert:
    return CUDA_ERROR_ASSERT;
  case exec::FaultKind::InvalidPc: // what an H100 reports for a call through 0x1234
    return CUDA_ERROR_INVALID_PC;
  default:
    return CUDA_ERROR_LAUNCH_FAILED;
  }
}

// Runs the grid of `f` with its packed parameters; `children` gets the grids it launched from
// device code.
CUresult runGrid(Context *ctx, Function *f, const LaunchConfig &cfg, const void *params,
                 LaunchTree &tree, std::vector<ChildLaunch> &children) {
  const jit::KernelInfo &k = f->kernel();
  const uint64_t nthreads = uint64_t(cfg.block[0]) * cfg.block[1] * cfg.block[2];
  auto fn = f->module()->program().blockFunction(k, cfg.block);
  if (!fn)
    return static_cast<CUresult>(fn.error().code());

  // Cooperative grids: every block gets a core of its own, and cooperative groups find their
  // grid barrier through %envreg1 (high half) and %envreg2 (low half) of the workspace address
  // (words 0-7: nvcc's inline barrier; 8-9: the device runtime's, device_services.cpp).
  alignas(64) uint32_t workspace[16] = {};
  uint32_t envregs[32] = {};
  if (cfg.cooperative) {
    auto ws = reinterpret_cast<uintptr_t>(workspace);
    envregs[1] = static_cast<uint32_t>(ws >> 32);
    envregs[2] = static_cast<uint32_t>(ws);
  }
  cucpu_launch launch{};
  for (int d = 0; d < 3; ++d) {
    launch.grid[d] = cfg.grid[d];
    launch.block[d] = cfg.block[d];
  }
  launch.params = params;
  launch.dyn_shared_bytes = cfg.sharedBytes;
  launch.nthreads = static_cast<uint32_t>(nthreads);
  launch.envreg = envregs;
  // One 4-byte word stored per thread already overflows the cache: let whole-line stores stream.
  // (Blocks against words per block: the grid's thread count can exceed 64 bits.)
  const uint64_t blocks = uint64_t(cfg.grid[0]) * cfg.grid[1] * cfg.grid[2];
  const uint64_t words = exec::lastLevelCacheBytes() / 4;
  if (blocks >= (words + nthreads - 1) / nthreads)
    launch.flags |= CUCPU_LAUNCH_STREAMING_STORES;
  ctx->reserveStack(k.localBytesPerThread);
  size_t printfBytes = 0, heapBytes = 0;
  ctx->limit(CU_LIMIT_PRINTF_FIFO_SIZE, &printfBytes);
  ctx->limit(CU_LIMIT_MALLOC_HEAP_SIZE, &heapBytes);
  DeviceLaunches launches(ctx, f, tree);
  LaunchServices services(k.name, printfBytes, ctx->deviceHeapUsed(), heapBytes, launches,
                          cfg.hostTrace.get());
  // nvcc's inline grid barrier and the device runtime's use the workspace: memory of the grid.
  sanitizer::addRange(reinterpret_cast<uintptr_t>(workspace), sizeof workspace);
  launch.services = services.table();
  exec::GridJob job;
  job.fn = *fn;
  job.launch = &launch;
  job.sharedBytes = size_t(k.dynamicSharedOffset) + cfg.sharedBytes;
  job.scratchBytes = size_t(k.scratchBytesPerThread) * nthreads;
  job.memoryAlign = k.blockMemoryAlign;
  job.maxThreads = ctx->workerLimit;
  job.blocksMayWait = k.blocksMayWait;
  log::trace(log::Component::Exec, "launch {} grid ({},{},{}) block ({},{},{}) smem {}", k.name,
             cfg.grid[0], cfg.grid[1], cfg.grid[2], cfg.block[0], cfg.block[1], cfg.block[2],
             cfg.sharedBytes);
  exec::GridResult result = cfg.cooperative ? pool().runCooperative(job) : pool().run(job);
  services.flush();
  sanitizer::removeRange(reinterpret_cast<uintptr_t>(workspace));
  if (result.status == exec::GridStatus::OutOfMemory)
    return fail(CUDA_ERROR_OUT_OF_MEMORY,
                "the grid's local or shared memory could not be allocated");
  if (result.status == exec::GridStatus::Fault) {
    // As on a GPU the launch itself succeeds; the context now reports the fault on every call.
    CUresult e = faultError(result.fault.kind);
    log::error(log::Component::Exec, "kernel {} faulted (CUresult {}){}", k.name,
               static_cast<int>(e),
               result.fault.kind == exec::FaultKind::IllegalAddress
                   ? fmt::format(": illegal access to address {:#x}", result.fault.address)
                   : std::string());
    ctx->setStickyError(e);
  }
  children = launches.takeLaunched();
  return CUDA_SUCCESS;
}

// The grids launched from device code, depth first: a child's own children run before its next
// sibling (a child grid is complete only when its descendants are), tail launches after their
// siblings. A launch stays pending until it is complete.
void runChildren(Context *ctx, LaunchTree &tree, std::vector<ChildLaunch> children) {
  struct Level {
    std::vector<ChildLaunch> children;
    size_t next = 0;
  };
  std::vector<Level> levels;
  if (!children.empty())
    levels.push_back({std::move(children)});
  while (!levels.empty()) {
    if (levels.back().next == levels.back().children.size()) {
      levels.pop_back();
      if (!levels.empty()) // the launch whose children these were is complete
        tree.pending.fetch_sub(1);
      continue;
    }
    ChildLaunch &c = levels.back().children[levels.back().next++];
    std::vector<ChildLaunch> grand;
    if (ctx->stickyError() == CUDA_SUCCESS)
      if (CUresult r = runGrid(ctx, c.function, c.config, c.buffer.get(), tree, grand);
          r != CUDA_SUCCESS)
        log::error(log::Component::Exec, "a device-side launch of {} failed (CUresult {})",
                   c.function->name(), static_cast<int>(r));
    if (grand.empty())
      tree.pending.fetch_sub(1);
    else
      levels.push_back({std::move(grand)});
  }
}

} // namespace

CUresult validateLaunch(const Function *f, const LaunchConfig &cfg) {
  const jit::KernelInfo &k = f->kernel();
  const uint64_t nthreads = uint64_t(cfg.block[0]) * cfg.block[1] * cfg.block[2];
  if (cfg.grid[0] == 0 || cfg.grid[1] == 0 || cfg.grid[2] == 0 || cfg.grid[1] > 65535 ||
      cfg.grid[2] > 65535 || cfg.grid[0] > 2147483647u)
    return fail(CUDA_ERROR_INVALID_VALUE,
                "grid {}x{}x{} of '{}': each dimension 1 to 2^31-1, 65535, 65535", cfg.grid[0],
                cfg.grid[1], cfg.grid[2], f->name());
  if (nthreads == 0 || cfg.block[0] > 1024 || cfg.block[1] > 1024 || cfg.block[2] > 64 ||
      nthreads > 1024)
    return fail(CUDA_ERROR_INVALID_VALUE,
                "block {}x{}x{} of '{}': each dimension at least 1, at most 1024, 1024, 64, "
                "1024 threads in all",
                cfg.block[0], cfg.block[1], cfg.block[2], f->name());
  if (k.reqntid[0] && (cfg.block[0] != k.reqntid[0] || cfg.block[1] != std::max(1u, k.reqntid[1]) ||
                       cfg.block[2] != std::max(1u, k.reqntid[2])))
    return fail(CUDA_ERROR_INVALID_VALUE, "block {}x{}x{}: '{}' requires .reqntid {}x{}x{}",
                cfg.block[0], cfg.block[1], cfg.block[2], f->name(), k.reqntid[0],
                std::max(1u, k.reqntid[1]), std::max(1u, k.reqntid[2]));
  if (k.maxntid[0] &&
      nthreads > uint64_t(k.maxntid[0]) * std::max(1u, k.maxntid[1]) * std::max(1u, k.maxntid[2]))
    return fail(CUDA_ERROR_INVALID_VALUE, "{} threads per block: '{}' allows .maxntid {}x{}x{}",
                nthreads, f->name(), k.maxntid[0], std::max(1u, k.maxntid[1]),
                std::max(1u, k.maxntid[2]));
  if (cfg.sharedBytes > static_cast<unsigned>(std::max(0, f->maxDynamicShared())))
    return fail(CUDA_ERROR_INVALID_VALUE,
                "{} bytes of dynamic shared memory: '{}' allows {} "
                "(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)",
                cfg.sharedBytes, f->name(), f->maxDynamicShared());
  if (k.paramBytes > kMaxParamBytes)
    return fail(CUDA_ERROR_INVALID_VALUE, "'{}' has {} bytes of parameters, more than {}",
                f->name(), k.paramBytes, kMaxParamBytes);
  // Every block of a cooperative grid is resident, as many per multiprocessor as occupancy says,
  // on the multiprocessors of the function's context (a green context's share).
  const Context *ctx = f->module()->context();
  const unsigned multiprocessors =
      ctx->workerLimit ? ctx->workerLimit : ctx->device()->multiprocessors();
  if (cfg.cooperative &&
      uint64_t(cfg.grid[0]) * cfg.grid[1] * cfg.grid[2] >
          uint64_t(f->activeBlocksPerMultiprocessor(static_cast<int>(nthreads), cfg.sharedBytes)) *
              multiprocessors)
    return fail(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
                "a cooperative grid of {} blocks: at most {} per multiprocessor x {} are resident",
                uint64_t(cfg.grid[0]) * cfg.grid[1] * cfg.grid[2],
                f->activeBlocksPerMultiprocessor(static_cast<int>(nthreads), cfg.sharedBytes),
                multiprocessors);
  return CUDA_SUCCESS;
}

CUresult launchKernel(Context *ctx, Function *f, const LaunchConfig &cfg, void **kernelParams,
                      void **extra) {
  if (CUresult sticky = ctx->stickyError(); sticky != CUDA_SUCCESS)
    return sticky;
  if (CUresult r = validateLaunch(f, cfg); r != CUDA_SUCCESS)
    return r;
  const jit::KernelInfo &k = f->kernel();

  alignas(16) uint8_t params[kMaxParamBytes + 4];
  if (kernelParams) {
    if (extra)
      return fail(CUDA_ERROR_INVALID_VALUE, "both kernelParams and extra are given");
    for (size_t i = 0; i < k.params.size(); ++i) {
      if (!kernelParams[i])
        return fail(CUDA_ERROR_INVALID_VALUE, "kernelParams[{}] is NULL", i);
      std::memcpy(params + k.params[i].offset, kernelParams[i], k.params[i].size);
    }
  } else if (extra) {
    const void *buf = nullptr;
    size_t bufSize = 0;
    bool haveSize = false;
    for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
        buf = extra[i + 1];
      } else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
        if (!extra[i + 1])
          return fail(CUDA_ERROR_INVALID_VALUE,
                      "extra: CU_LAUNCH_PARAM_BUFFER_SIZE points to NULL");
        bufSize = *static_cast<size_t *>(extra[i + 1]);
        haveSize = true;
      } else {
        return fail(CUDA_ERROR_INVALID_VALUE, "extra[{}] = {} is no CU_LAUNCH_PARAM_ marker", i,
                    extra[i]);
      }
    }
    if (!buf || !haveSize || bufSize < k.paramBytes)
      return fail(CUDA_ERROR_INVALID_VALUE,
                  "extra: a buffer and its size of at least {} bytes are needed for '{}'",
                  k.paramBytes, f->name());
    std::memcpy(params, buf, k.paramBytes);
  } else if (!k.params.empty()) {
    return fail(CUDA_ERROR_INVALID_VALUE,
                "'{}' has {} parameters but kernelParams and extra are NULL", f->name(),
                k.params.size());
  }

  LaunchTree tree;
  std::vector<ChildLaunch> children;
  if (CUresult r = runGrid(ctx, f, cfg, params, tree, children); r != CUDA_SUCCESS)
    return r;
  runChildren(ctx, tree, std::move(children));
  return CUDA_SUCCESS;
}

CUresult synchronize(Context *ctx) { return ctx->stickyError(); }

} // namespace cucpu::driver
