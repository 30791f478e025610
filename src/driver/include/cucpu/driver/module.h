// Modules (a loaded PTX program in a context) and functions (its kernels).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace cucpu::jit {
class Program;
struct KernelInfo;
} // namespace cucpu::jit

namespace cucpu::driver {

class Context;
class Module;

class Function {
public:
  Function(Module *m, const jit::KernelInfo *k);
  Module *module() const { return module_; }
  const jit::KernelInfo &kernel() const { return *kernel_; }
  const std::string &name() const;
  // Offset and size of parameter `index` in the packed .param space; false when out of range.
  bool param(size_t index, size_t *offset, size_t *size) const;

  // CU_FUNC_ATTRIBUTE_* values this function reports; INVALID_VALUE for unknown ones.
  CUresult attribute(CUfunction_attribute attr, int *value) const;
  CUresult setAttribute(CUfunction_attribute attr, int value);
  int maxDynamicShared() const { return maxDynamicShared_; }
  // The most threads a block of this function may have (1024, or less by .maxntid/.reqntid).
  int maxThreadsPerBlock() const;
  // Blocks of `blockSize` threads with `dynamicShared` bytes that one multiprocessor holds at
  // once, by the occupancy calculator's rules (whole warps, the per-multiprocessor limits of
  // device.h; registers are no limit here); 0 when such a block cannot run at all. Cooperative
  // grids may have this many blocks per multiprocessor.
  int activeBlocksPerMultiprocessor(int blockSize, size_t dynamicShared) const;
  // The dynamic shared memory each block may have for `numBlocks` blocks of `blockSize` threads
  // to be resident on one multiprocessor (0 when they cannot be).
  size_t availableDynamicShared(int numBlocks, int blockSize) const;
  // cuFuncSetCacheConfig's preference, recorded and reported back.
  CUfunc_cache cacheConfig = CU_FUNC_CACHE_PREFER_NONE;

  // The pre-4.0 launch API's state (cuFuncSetBlockShape, cuFuncSetSharedSize, cuParamSet*):
  // `params` holds what was set (it may run past `paramSize`, as NVIDIA's driver allows); a
  // launch passes the first `paramSize` bytes.
  struct OldLaunch {
    unsigned block[3] = {1, 1, 1};
    unsigned shared = 0;
    size_t paramSize = 0;
    std::vector<unsigned char> params;
  };
  OldLaunch oldLaunch; // guarded by oldLaunchMutex
  std::mutex oldLaunchMutex;

private:
  Module *module_;
  const jit::KernelInfo *kernel_;
  int maxDynamicShared_;
};

class Module {
public:
  Module(Context *ctx, std::unique_ptr<jit::Program> program, unsigned maxRegisters = 0);
  ~Module();
  Context *context() const { return ctx_; }
  unsigned maxRegisters() const { return maxRegisters_; } // 0: no CU_JIT_MAX_REGISTERS
  jit::Program &program() { return *program_; }
  // The function for a kernel of this module, or null when there is no such kernel.
  Function *function(std::string_view name);
  const std::vector<std::unique_ptr<Function>> &functions() const { return functions_; }
  // A .global or .const variable: NOT_FOUND when the module has none of that name.
  CUresult global(std::string_view name, CUdeviceptr *address, size_t *bytes);
  // The same for a __managed__ variable (NOT_FOUND for any other).
  CUresult managedGlobal(std::string_view name, CUdeviceptr *address, size_t *bytes);

private:
  Context *ctx_;
  std::unique_ptr<jit::Program> program_;
  unsigned maxRegisters_ = 0;
  std::vector<std::unique_ptr<Function>> functions_;
  std::vector<void *> trackedGlobals_; // in the allocation tracker until the module goes
};

// Options of cuModuleLoadDataEx that the loader honours.
struct LoadOptions {
  char *errorLog = nullptr;
  size_t errorLogSize = 0;
  char *infoLog = nullptr;
  size_t infoLogSize = 0;
  bool verbose = false;
  float *wallTimeMs = nullptr;
  size_t *errorLogSizeOut = nullptr; // where to write back the bytes used
  size_t *infoLogSizeOut = nullptr;
  unsigned maxRegisters = 0; // CU_JIT_MAX_REGISTERS: NUM_REGS stays within it (0: no limit)
};

// Copies `text` into a JIT log buffer of `size` bytes (truncated, NUL-terminated); returns the
// bytes written including the NUL (0 without a buffer).
size_t fillLog(char *buf, size_t size, const std::string &text);

// Loads a PTX image (NUL-terminated text), a linked image (cuLinkComplete) or a fat binary
// (wrapper or container) into `ctx`.
CUresult loadModule(Context *ctx, const void *image, const LoadOptions &opts, Module **out);
CUresult unloadModule(Module *m);

bool isLiveModule(const Module *m);
bool isLiveFunction(const Function *f);

} // namespace cucpu::driver
