// Libraries (cuLibrary*): a context-independent fat binary or PTX image whose module is loaded
// into each context on first use, and kernels (CUkernel) that resolve to that context's function.
#pragma once

#include <cuda.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cucpu::driver {

class Context;
class Function;
class Library;
class Module;

class Kernel {
public:
  Kernel(Library *lib, std::string name) : library_(lib), name_(std::move(name)) {}
  Library *library() const { return library_; }
  const std::string &name() const { return name_; }
  // This kernel's function in `ctx`, loading the library's module there first if needed.
  CUresult function(Context *ctx, Function **out);
  // cuKernelSetAttribute / cuKernelSetCacheConfig: applied in `ctx` now and remembered for
  // contexts that load the module later.
  CUresult setAttribute(Context *ctx, CUfunction_attribute attr, int value);
  CUresult setCacheConfig(Context *ctx, CUfunc_cache config);

private:
  friend class Library;
  CUresult apply(Function *f) const; // the remembered settings
  Library *library_;
  std::string name_;
  std::vector<std::pair<CUfunction_attribute, int>> attributes_; // guarded by the library
  CUfunc_cache cacheConfig_ = CU_FUNC_CACHE_PREFER_NONE;
};

class Library {
public:
  // Parses `image` (fat binary or PTX text) for a device of compute capability `cc`; the PTX is
  // compiled per context on first use. NO_BINARY_FOR_GPU / INVALID_IMAGE as loadModule.
  static CUresult load(const void *image, int cc, std::unique_ptr<Library> *out);
  ~Library();

  const std::vector<std::unique_ptr<Kernel>> &kernels() const { return kernels_; }
  Kernel *kernel(const std::string &name) const;
  // The module of this library in `ctx` (loaded on first call).
  CUresult module(Context *ctx, Module **out);

private:
  friend class Kernel;
  struct Loaded {
    Context *ctx;
    unsigned long long ctxId; // tells a live context from a new one at the same address
    Module *module;
  };
  std::string ptx_;
  std::vector<std::unique_ptr<Kernel>> kernels_;
  std::mutex mutex_;
  std::vector<Loaded> loaded_;
};

// Live-handle registry of libraries and kernels.
void registerLibrary(Library *l);
void unregisterLibrary(Library *l);
bool isLiveLibrary(const Library *l);
bool isLiveKernel(const Kernel *k);

} // namespace cucpu::driver
