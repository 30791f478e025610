// A loaded PTX module: its kernels' layouts, and native block functions compiled through ORC.
#pragma once

#include "cucpu/support/status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct cucpu_launch;
struct cucpu_block;

namespace cucpu::jit {

using BlockFn = void (*)(const cucpu_launch *, cucpu_block *);

struct ParamInfo {
  uint32_t offset = 0;
  uint32_t size = 0;
  uint32_t align = 1;
  bool operator==(const ParamInfo &) const = default;
};

// What the runtime needs to know about one kernel to launch it.
struct KernelInfo {
  std::string name;
  std::vector<ParamInfo> params;
  uint32_t paramBytes = 0;            // size of the packed .param space
  uint32_t staticSharedBytes = 0;     // this kernel's static shared memory
  uint32_t dynamicSharedOffset = 0;   // where dynamic shared memory starts in the block's window
  uint32_t localBytesPerThread = 0;   // .local memory per thread
  uint32_t scratchBytesPerThread = 0; // context arrays + local memory, per thread
  uint32_t blockMemoryAlign = 16;     // the alignment the block's shared memory and scratch need
  uint32_t constBytes = 0;            // the module's .const variables, laid out as a bank
  uint32_t maxntid[3] = {0, 0, 0};
  uint32_t reqntid[3] = {0, 0, 0};
  uint32_t numRegs = 0;       // register pressure of the PTX, within .maxnreg (NUM_REGS)
  uint32_t regions = 1;       // barrier-delimited regions of the block function
  bool warpScheduled = false; // runs warp by warp (warp-level sync points) or block-wide
  bool blocksMayWait = false; // has yield points: its threads may wait for other blocks' work
  uint32_t ptxVersion = 0;    // CU_FUNC_ATTRIBUTE_PTX_VERSION: the .target (sm_75 -> 75), as a GPU
  bool operator==(const KernelInfo &) const = default;
};

// The on-disk cache of compiled kernels, as this process sees it: its directory (empty when the
// cache is off), objects loaded from it and written to it, and lowered modules loaded from it
// and written to it.
struct CodeCacheStats {
  std::string directory;
  uint64_t hits = 0;
  uint64_t stores = 0;
  uint64_t moduleHits = 0;
  uint64_t moduleStores = 0;
};
CodeCacheStats codeCacheStats();

class Program {
public:
  ~Program();
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;

  // Parses and lowers `ptx`. On failure the status carries the CUresult (INVALID_PTX for malformed
  // text, NOT_SUPPORTED for valid PTX using an unimplemented feature) and `log` the diagnostics.
  // On success `log` gets informational lines (kernels, timings).
  static Expected<std::unique_ptr<Program>> load(std::string_view ptx, std::string &log);

  const std::vector<KernelInfo> &kernels() const;
  const KernelInfo *findKernel(std::string_view name) const;
  // Compiles (once per block shape) and returns the native block function of a kernel of this
  // program for blocks of `block` threads: %ntid is a constant in it. Compiled code is kept in an
  // on-disk cache across processes (code_cache.h).
  Expected<BlockFn> blockFunction(const KernelInfo &kernel, const uint32_t block[3]);
  // The address and size in bytes of a module-scope .global or .const variable (initialised as
  // the PTX says); CUDA_ERROR_NOT_FOUND (500) when the module has no such variable.
  Expected<std::pair<void *, size_t>> global(std::string_view name);
  // The names of the module-scope .global and .const variables.
  std::vector<std::string> globalNames() const;
  // Extern .global/.const variables no input defines: defined here (zero), as NVIDIA's PTX
  // compiler does for one module; a link (cuLinkComplete) reports them as undefined instead.
  const std::vector<std::string> &unresolvedExterns() const;
  // The kernel whose address generated code took (`mov.u64 %rd, kernel`, as a device-side launch
  // does), or null when `address` is no kernel of this program.
  const KernelInfo *kernelAt(uint64_t address);
  // Whether a module-scope variable is declared .attribute(.managed) (__managed__).
  bool isManaged(std::string_view name) const;

  // What the PTX tool shows of one kernel: its LLVM IR as lowered, the IR after the optimisation
  // pipeline, or the native assembly; specialised for blocks of `block` threads when given, as a
  // launch does. Lowers the kernel afresh; loads nothing into the JIT.
  enum class Stage { LoweredIR, OptimizedIR, Assembly };
  static Expected<std::string> inspect(std::string_view ptx, std::string_view kernel, Stage stage,
                                       const uint32_t *block = nullptr);

  struct Impl;

private:
  explicit Program(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace cucpu::jit
